import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted HTTP server on 127.0.0.1 for provider tests. Each request takes the next queued step (or the
 * fallback); the provider-specific modules (`fake-openai.ts`, ...) build steps in their real wire format.
 */
export type FakeStep =
  /** A JSON answer (any status). */
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /** Server-sent events; `cutAfter` destroys the connection after that many events (a cut-off stream). */
  | { kind: 'sse'; events: SseEvent[]; cutAfter?: number; headers?: Record<string, string> }
  /** A raw body as given (malformed JSON, HTML error pages). */
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  /** Never answers (the client's timeout must fire). */
  | { kind: 'hang' }
  /** Closes the connection without an answer. */
  | { kind: 'drop' };

export interface SseEvent {
  event?: string;
  /** Sent as `data: <JSON>` unless already a string. */
  data: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface FakeServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  requests: RecordedRequest[];
  enqueue(...steps: FakeStep[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(
  opts: { fallback?: (req: RecordedRequest) => FakeStep } = {},
): Promise<FakeServer> {
  const queue: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {}
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      const step = queue.shift() ??
        opts.fallback?.(recorded) ?? {
          kind: 'json',
          status: 500,
          body: { error: { message: `fake server: no step queued for ${recorded.method} ${recorded.path}` } },
        };
      open.add(res);
      res.on('close', () => open.delete(res));
      answer(res, step);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...steps) => void queue.push(...steps),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, step: FakeStep): void {
  switch (step.kind) {
    case 'json': {
      const text = JSON.stringify(step.body);
      res.writeHead(step.status ?? 200, { 'content-type': 'application/json', ...step.headers });
      res.end(text);
      return;
    }
    case 'raw':
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.body);
      return;
    case 'sse': {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        ...step.headers,
      });
      step.events.forEach((e, i) => {
        if (step.cutAfter !== undefined && i >= step.cutAfter) return;
        const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
        res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`);
      });
      // A cut-off stream: the events so far reach the client, then the connection drops mid-body.
      if (step.cutAfter !== undefined && step.cutAfter < step.events.length)
        setTimeout(() => res.socket?.destroy(), 20);
      else res.end();
      return;
    }
    case 'hang':
      return;
    case 'drop':
      res.socket?.destroy();
      return;
  }
}
