import { request } from 'node:http';
import { z } from 'zod';
import {
  type ModelCallOptions,
  type ModelError,
  type ModelFn,
  type ModelInfo,
  type ModelRequest,
  type ModelResult,
  modelErrorSchema,
  modelInfoSchema,
  modelReplySchema,
} from './messages.ts';

/**
 * Client for the harness's LLM gateway. `url` is `unix:/abs/path/gateway.sock` or
 * `http://127.0.0.1:PORT`. HTTP and network failures come back as typed errors, never as exceptions.
 */
export type GatewayConfig = {
  url: string;
  token: string;
  timeoutMs?: number;
  /** The task the calls are for (the request line's id and domain): the harness counts their cost in its result. */
  task?: { id: string; domain: string };
};

/** The gateway's headers naming a call's task (contracts: "Wire protocol of the LLM gateway"). */
const TASK_HEADER = 'x-hyperagents-task';
const TASK_DOMAIN_HEADER = 'x-hyperagents-task-domain';

const DEFAULT_TIMEOUT_MS = 15 * 60_000;

/** Reads HYPERAGENTS_LLM_URL and HYPERAGENTS_LLM_TOKEN; throws (a startup error) when either is missing. */
export function gatewayFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const url = env.HYPERAGENTS_LLM_URL;
  const token = env.HYPERAGENTS_LLM_TOKEN;
  if (!url || !token) {
    throw new Error('HYPERAGENTS_LLM_URL and HYPERAGENTS_LLM_TOKEN must be set to reach the LLM gateway');
  }
  return { url, token };
}

export function createGatewayModel(config: GatewayConfig): ModelFn {
  return async (req: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResult> => {
    const response = await send(config, 'POST', '/v1/chat', req, options.signal);
    if (!response.ok) return response;
    const reply = modelReplySchema.safeParse(response.body);
    if (!reply.success) return { ok: false, error: malformed('chat reply', reply.error) };
    return { ok: true, reply: reply.data };
  };
}

export type ModelList = { ok: true; models: ModelInfo[] } | { ok: false; error: ModelError };

/** The models this token may use, its assigned model first. */
export async function listModels(config: GatewayConfig): Promise<ModelList> {
  const response = await send(config, 'GET', '/v1/models');
  if (!response.ok) return response;
  const list = z.object({ models: z.array(modelInfoSchema) }).safeParse(response.body);
  if (!list.success) return { ok: false, error: malformed('model list', list.error) };
  return { ok: true, models: list.data.models };
}

function malformed(what: string, error: z.ZodError): ModelError {
  return {
    type: 'internal',
    message: `malformed ${what} from the gateway: ${error.message}`,
    retryable: true,
  };
}

type Sent = { ok: true; body: unknown } | { ok: false; error: ModelError };

function target(url: string): { socketPath: string } | { host: string; port: number } {
  if (url.startsWith('unix:')) return { socketPath: url.slice('unix:'.length) };
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 80) };
}

/** The gateway's answer: its JSON body on a 2xx, else the typed error it sent (or one saying what came). */
function readReply(statusCode: number | undefined, text: string): Sent {
  const fail = (message: string, retryable: boolean): Sent => ({
    ok: false,
    error: { type: 'internal', message, retryable },
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(`gateway answered ${statusCode} with non-JSON: ${text.slice(0, 200)}`, true);
  }
  const status = statusCode ?? 0;
  if (status >= 200 && status < 300) return { ok: true, body: parsed };
  const error = z.object({ error: modelErrorSchema }).safeParse(parsed);
  if (error.success) return { ok: false, error: error.data.error };
  return fail(`gateway answered ${status}: ${text.slice(0, 200)}`, status >= 500);
}

function send(
  config: GatewayConfig,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Sent> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const fail = (type: ModelError['type'], message: string, retryable: boolean) =>
      resolve({ ok: false, error: { type, message, retryable } });
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let where: ReturnType<typeof target>;
    try {
      where = target(config.url);
    } catch {
      fail('bad_request', `invalid gateway url: ${config.url}`, false);
      return;
    }
    const req = request(
      {
        ...where,
        method,
        path,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${config.token}`,
          ...(config.task === undefined
            ? {}
            : {
                [TASK_HEADER]: encodeURIComponent(config.task.id),
                [TASK_DOMAIN_HEADER]: encodeURIComponent(config.task.domain),
              }),
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => fail('internal', `gateway response failed: ${error.message}`, true));
        res.on('end', () => resolve(readReply(res.statusCode, Buffer.concat(chunks).toString('utf8'))));
      },
    );
    // Cancelling closes the connection; the gateway then aborts the provider call.
    const cancel = () => {
      fail('internal', 'the model call was cancelled', false);
      req.destroy();
    };
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', cancel));
    req.on('timeout', () => {
      fail('timeout', `the gateway did not answer within ${timeoutMs} ms`, true);
      req.destroy();
    });
    req.on('error', (error) =>
      fail('internal', `gateway unreachable at ${config.url}: ${error.message}`, true),
    );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
