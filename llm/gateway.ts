import { randomBytes } from 'node:crypto';
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ModelProvider, ProviderResult } from './provider.ts';
import { costUsd, knownModelIds, type ModelRecord, resolveModel } from './registry.ts';
import {
  type CallContext,
  type ChatRequest,
  ChatRequestSchema,
  type ChatResponse,
  ERROR_STATUS,
  type ErrorType,
  formatIssues,
  type GatewayErrorBody,
  type LedgerRow,
  type ModelsResponse,
  type Role,
  ZERO_USAGE,
} from './types.ts';
import { clearStaleSocket, closeServer, listen, usableSocketPath } from './unix-socket.ts';

export interface GatewayOptions {
  /** Where to listen; a path too long for a unix socket is replaced by a short one in os.tmpdir(). */
  socketPath: string;
  /** Also listen on 127.0.0.1 (random port). */
  tcp?: boolean;
  /** The provider serving a model id, or undefined when the run may not use that model. */
  providers: (modelId: string) => ModelProvider | undefined;
  /** Receives one ledger row per authenticated call. Must not throw (a throw is logged and ignored). */
  onCall: (row: LedgerRow) => void;
  /** Calls are refused once the run has spent this many USD. */
  budgetUsd?: number;
}

/** What a token may do: it identifies run, variant and role, and names the default model. */
export interface TokenGrant {
  runId: string;
  variantId: number | null;
  role: Role;
  model: string;
}

export interface Gateway {
  /** `unix:/abs/path.sock` (the real path, after any fallback): the agents' HYPERAGENTS_LLM_URL. */
  url: string;
  socketPath: string;
  /** `http://127.0.0.1:PORT` when started with `tcp`. */
  tcpUrl?: string;
  /** Throws when `grant.model` is not a known model id (a configuration error). */
  issueToken(grant: TokenGrant): string;
  revokeToken(token: string): void;
  spentUsd(): number;
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** Starts the LLM gateway (wire protocol: contracts "Wire protocol of the LLM gateway"). */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const tokens = new Map<string, TokenGrant>();
  let spent = 0;

  const record = (row: LedgerRow) => {
    try {
      opts.onCall(row);
    } catch (error) {
      process.stderr.write(`gateway: ledger callback failed: ${(error as Error).message}\n`);
    }
  };

  const availableModels = (first: string): ModelRecord[] => {
    const ids = [first, ...knownModelIds().filter((id) => id !== first && safeProvider(opts, id))];
    return ids.flatMap((id) => {
      const resolved = resolveModel(id);
      return resolved.ok ? [resolved.model] : [];
    });
  };

  const chat = async (grant: TokenGrant, body: ChatRequest, res: ServerResponse, row: Row): Promise<void> => {
    const modelId = body.model ?? grant.model;
    row.model = modelId;
    const resolved = resolveModel(modelId);
    if (!resolved.ok) return fail(res, row, 'unknown_model', resolved.error.message);
    const provider = safeProvider(opts, modelId);
    if (!provider) {
      const allowed = availableModels(grant.model).map((m) => m.id);
      return fail(
        res,
        row,
        'unknown_model',
        `model "${modelId}" is not available in this run; use one of: ${allowed.join(', ')}`,
      );
    }
    if (opts.budgetUsd !== undefined && spent >= opts.budgetUsd) {
      return fail(
        res,
        row,
        'budget_exceeded',
        `the run's budget of $${opts.budgetUsd.toFixed(4)} is used up ($${spent.toFixed(4)} spent); no more model calls are allowed in this run`,
      );
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const ctx: CallContext = { runId: grant.runId, variantId: grant.variantId, role: grant.role };
    const result = await safeComplete(provider, { ...body, model: modelId }, ctx, controller.signal);
    const latencyMs = Date.now() - row.started;
    if (!result.ok) return fail(res, row, result.error.type, result.error.message, result.error.retryable);
    const { message, stopReason, usage } = result.response;
    const cost = result.response.costUsd ?? costUsd(resolved.model, usage);
    spent += cost;
    record({ ...ledgerBase(row), usage, costUsd: cost, latencyMs, status: 'ok' });
    const response: ChatResponse = { message, stopReason, usage, costUsd: cost, model: modelId, latencyMs };
    sendJson(res, 200, response);
  };

  const fail = (res: ServerResponse, row: Row, type: ErrorType, message: string, retryable = false): void => {
    record({
      ...ledgerBase(row),
      usage: { ...ZERO_USAGE },
      costUsd: 0,
      latencyMs: Date.now() - row.started,
      status: type,
      error: message,
    });
    sendError(res, type, message, retryable);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const route = `${req.method} ${path}`;
    if (route !== 'POST /v1/chat' && route !== 'GET /v1/models') {
      req.resume();
      return sendError(
        res,
        'bad_request',
        `no route ${route}; the gateway serves POST /v1/chat and GET /v1/models`,
      );
    }
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : tokens.get(token);
    if (!grant) {
      req.resume();
      const why = token === undefined ? 'missing bearer token' : 'unknown or revoked token';
      return sendError(res, 'auth', `${why}: send "Authorization: Bearer $HYPERAGENTS_LLM_TOKEN"`);
    }
    if (route === 'GET /v1/models') {
      req.resume();
      const models: ModelsResponse = {
        models: availableModels(grant.model).map((m) => ({
          id: m.id,
          nativeTools: m.nativeTools,
          contextWindow: m.contextWindow,
          maxOutput: m.maxOutput,
          simulated: m.simulated,
        })),
      };
      return sendJson(res, 200, models);
    }
    const row: Row = { ts: new Date().toISOString(), started: Date.now(), grant, model: grant.model };
    const body = await readBody(req);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too_large') {
      res.setHeader('connection', 'close');
      return fail(
        res,
        row,
        'context_overflow',
        `request body over the gateway's limit of ${MAX_BODY_BYTES} bytes; shorten the conversation`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch (error) {
      return fail(res, row, 'bad_request', `request body is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = ChatRequestSchema.safeParse(json);
    if (!parsed.success) {
      return fail(res, row, 'bad_request', `invalid chat request:\n${formatIssues(parsed.error.issues)}`);
    }
    await chat(grant, parsed.data, res, row);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`gateway: internal error: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent)
        sendError(res, 'internal', `gateway internal error: ${(error as Error).message}`, true);
      else res.destroy();
    });
  };

  const socketPath = usableSocketPath(opts.socketPath);
  await clearStaleSocket(socketPath);
  const unixServer = createServer(listener);
  await listen(unixServer, socketPath);
  await chmod(socketPath, 0o600);
  let tcpServer: Server | undefined;
  let tcpUrl: string | undefined;
  if (opts.tcp) {
    tcpServer = createServer(listener);
    await listen(tcpServer, 0, '127.0.0.1');
    const address = tcpServer.address();
    if (address && typeof address === 'object') tcpUrl = `http://127.0.0.1:${address.port}`;
  }

  return {
    url: `unix:${socketPath}`,
    socketPath,
    ...(tcpUrl ? { tcpUrl } : {}),
    issueToken(grant) {
      const resolved = resolveModel(grant.model);
      if (!resolved.ok) throw new Error(resolved.error.message);
      const token = `hat_${randomBytes(24).toString('base64url')}`;
      tokens.set(token, { ...grant });
      return token;
    },
    revokeToken: (token) => void tokens.delete(token),
    spentUsd: () => spent,
    async close() {
      tokens.clear();
      await Promise.all([closeServer(unixServer), tcpServer ? closeServer(tcpServer) : undefined]);
      await unlink(socketPath).catch(() => undefined);
    },
  };
}

interface Row {
  ts: string;
  started: number;
  grant: TokenGrant;
  model: string;
}

function ledgerBase(row: Row) {
  return {
    ts: row.ts,
    runId: row.grant.runId,
    variantId: row.grant.variantId,
    role: row.grant.role,
    model: row.model,
  };
}

function safeProvider(opts: GatewayOptions, id: string): ModelProvider | undefined {
  try {
    return opts.providers(id);
  } catch {
    return undefined;
  }
}

async function safeComplete(
  provider: ModelProvider,
  req: ChatRequest,
  ctx: CallContext,
  signal: AbortSignal,
): Promise<ProviderResult> {
  try {
    return await provider.complete(req, ctx, signal);
  } catch (error) {
    return {
      ok: false,
      error: { type: 'internal', message: `provider threw: ${(error as Error).message}`, retryable: true },
    };
  }
}

type Body = { kind: 'ok'; text: string } | { kind: 'too_large' } | { kind: 'aborted' };

/** Reads the body up to MAX_BODY_BYTES; beyond that the rest is drained and dropped. */
function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      req.resume();
      resolve({ kind: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.resume();
        chunks.length = 0;
        resolve({ kind: 'too_large' });
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) resolve({ kind: 'aborted' });
    });
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, type: ErrorType, message: string, retryable = false): void {
  const body: GatewayErrorBody = { error: { type, message, retryable } };
  sendJson(res, ERROR_STATUS[type], body);
}
