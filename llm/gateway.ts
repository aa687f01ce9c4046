import { randomBytes } from 'node:crypto';
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { adaptRequest } from './adapt.ts';
import { createBudget, maxCallCost } from './budget.ts';
import { MAX_BODY_BYTES, readBody, sendError, sendJson } from './gateway-http.ts';
import type { ModelProvider, ProviderResult, RetryTrace } from './provider.ts';
import {
  type Normalizer,
  normalizeRequest,
  type RecordedResponse,
  type RecordWriter,
  type ReplayBook,
  requestKey,
} from './recorder.ts';
import {
  costUsd,
  knownModelIds,
  type ModelRecord,
  type ResolveModelResult,
  resolveModel,
} from './registry.ts';
import {
  type CallContext,
  type ChatRequest,
  ChatRequestSchema,
  type ChatResponse,
  type ErrorType,
  formatIssues,
  type LedgerRow,
  type ModelsResponse,
  type Role,
  ZERO_USAGE,
} from './types.ts';
import { clearStaleSocket, closeServer, listen, usableSocketPath } from './unix-socket.ts';

/**
 * How long the gateway keeps an idle connection open: longer than agents' HTTP clients keep one (Node's
 * default agent: 5 s), so that it is always the agent that closes an idle connection. A gateway closing
 * first can cross the agent's next request on that connection, which the agent reports as a failed model
 * call: a task's outcome would then depend on timing (more so on a loaded machine or through a relay).
 */
const KEEP_ALIVE_MS = 65_000;

export interface GatewayOptions {
  /** Where to listen; a path too long for a unix socket is replaced by a short one in os.tmpdir(). */
  socketPath: string;
  /** Also listen on TCP: `true` is 127.0.0.1 on a random port (port 0 is random too). */
  tcp?: boolean | { host: string; port: number };
  /** The provider serving a model id, or undefined when the run may not use that model. */
  providers: (modelId: string) => ModelProvider | undefined;
  /**
   * The model ids the run serves, when that is not simply every id `providers` serves (in replay mode no
   * provider exists). Tokens may use these.
   */
  models?: readonly string[];
  /** Model records that replace the registry's: the sim with its nominal price prices the budget. */
  records?: (modelId: string) => ModelRecord | undefined;
  /** Receives one ledger row per authenticated call. Must not throw (a throw is logged and ignored). */
  onCall: (row: GatewayLedgerRow) => void;
  /** The run's spending limit in USD (see `createBudget`: the run ends at most one call's output over it). */
  budgetUsd?: number;
  /** Appends every successful response to a recording. */
  record?: RecordWriter;
  /** Answers every call from a recording; no provider is called. */
  replay?: ReplayBook;
  /** Replaces run-specific text for recording keys (see `runPlaceholders`); default: none. */
  normalizer?: Normalizer;
}

/** A ledger row with what the gateway knows beyond the wire: retries, replay, adaptation. */
export interface GatewayLedgerRow extends LedgerRow {
  /** Provider attempts made: 1 plus retries; 0 when no provider was called (refused, replayed). */
  attempts: number;
  replayed: boolean;
  /** What adaptation changed in the request (`adaptRequest` notes). */
  adapted?: string[];
  /** The errors that were retried, as `type: message`. */
  retried?: string[];
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
  /** `http://HOST:PORT` when started with `tcp`. */
  tcpUrl?: string;
  /**
   * Throws when `grant.model` is not a known model id (a configuration error). `token`, when given, is the
   * token to accept (one the caller derived from a secret, so that it survives a restart); else a random one.
   */
  issueToken(grant: TokenGrant, token?: string): string;
  revokeToken(token: string): void;
  spentUsd(): number;
  /** True once a call was refused for the budget; every later call is refused too. */
  budgetReached(): boolean;
  /** Calls that found no recorded response in replay mode. */
  replayMisses(): number;
  close(): Promise<void>;
}

const IDENTITY: Normalizer = { normalize: (v) => v, restore: (v) => v };

export { MAX_BODY_BYTES } from './gateway-http.ts';

/** Starts the LLM gateway (wire protocol: contracts "Wire protocol of the LLM gateway"). */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const tokens = new Map<string, TokenGrant>();
  const budget = createBudget(opts.budgetUsd);
  const normalizer = opts.normalizer ?? IDENTITY;
  let misses = 0;

  const ledger = (row: GatewayLedgerRow) => {
    try {
      opts.onCall(row);
    } catch (error) {
      process.stderr.write(`gateway: ledger callback failed: ${(error as Error).message}\n`);
    }
  };

  const resolve = (id: string): ResolveModelResult => {
    const own = opts.records?.(id);
    return own ? { ok: true, model: own } : resolveModel(id);
  };
  const serves = (id: string): boolean =>
    opts.models ? opts.models.includes(id) : safeProvider(opts, id) !== undefined;

  const availableModels = (first: string): ModelRecord[] => {
    const others = (opts.models ?? knownModelIds()).filter((id) => id !== first && serves(id));
    return [first, ...others].flatMap((id) => {
      const resolved = resolve(id);
      return resolved.ok ? [resolved.model] : [];
    });
  };

  const chat = async (grant: TokenGrant, call: Call, res: ServerResponse): Promise<void> => {
    const { body, row } = call;
    const modelId = body.model ?? grant.model;
    row.model = modelId;
    const resolved = resolve(modelId);
    if (!resolved.ok) return fail(res, row, 'unknown_model', resolved.error.message);
    if (!serves(modelId)) {
      const allowed = availableModels(grant.model).map((m) => m.id);
      return fail(
        res,
        row,
        'unknown_model',
        `model "${modelId}" is not available in this run; use one of: ${allowed.join(', ')}`,
      );
    }
    const model = resolved.model;
    const req: ChatRequest = { ...body, model: modelId };
    const recorded =
      opts.record || opts.replay ? normalizeRequest(grant.role, modelId, body, normalizer) : null;
    const key = recorded === null ? '' : requestKey(recorded);
    if (opts.replay) {
      const hit = opts.replay.next(key);
      if (hit === undefined) {
        misses++;
        return fail(
          res,
          row,
          'provider_error',
          `no recorded response for this ${grant.role} request in ${opts.replay.file} (replay mode calls no ` +
            'model). The run asked something the recorded run did not: replay with the same options and ' +
            '--seed as the recording, and record again after changing the agents or the harness.',
        );
      }
      return answer(res, row, normalizer.restore(hit), { costUsd: 0, attempts: 0, replayed: true });
    }
    const fitted = adaptRequest(model, req);
    const reservation = budget.reserve(maxCallCost(model, fitted.maxTokens, call.chars), modelId);
    if (!reservation.ok) return fail(res, row, 'budget_exceeded', reservation.message);
    const provider = safeProvider(opts, modelId);
    if (!provider) {
      reservation.settle(0);
      return fail(res, row, 'unknown_model', `model "${modelId}" has no provider in this run`);
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const ctx: CallContext = { runId: grant.runId, variantId: grant.variantId, role: grant.role };
    const result = await safeComplete(provider, req, ctx, controller.signal);
    const trace: RetryTrace = result.trace ?? { attempts: 1, retried: [] };
    if (!result.ok) {
      reservation.settle(0);
      return fail(res, row, result.error.type, result.error.message, result.error.retryable, trace);
    }
    const cost = result.response.costUsd ?? costUsd(model, result.response.usage);
    reservation.settle(cost);
    const adapted = result.response.adapted ?? fitted.adapted;
    const response: RecordedResponse = {
      message: result.response.message,
      stopReason: result.response.stopReason,
      usage: result.response.usage,
      costUsd: cost,
      ...(adapted.length > 0 ? { adapted } : {}),
    };
    if (opts.record && recorded !== null) {
      try {
        opts.record.append({ key, request: recorded, response: normalizer.normalize(response) });
      } catch (error) {
        process.stderr.write(
          `gateway: could not append to ${opts.record.file}: ${(error as Error).message}\n`,
        );
      }
    }
    answer(res, row, response, { costUsd: cost, attempts: trace.attempts, replayed: false, trace });
  };

  const answer = (
    res: ServerResponse,
    row: Row,
    reply: RecordedResponse,
    how: { costUsd: number; attempts: number; replayed: boolean; trace?: RetryTrace },
  ): void => {
    const latencyMs = Date.now() - row.started;
    const { message, stopReason, usage, adapted } = reply;
    ledger({
      ...ledgerBase(row),
      usage,
      costUsd: how.costUsd,
      latencyMs,
      status: 'ok',
      attempts: how.attempts,
      replayed: how.replayed,
      ...(adapted ? { adapted } : {}),
      ...(how.trace && how.trace.retried.length > 0 ? { retried: how.trace.retried } : {}),
    });
    const response: ChatResponse = {
      message,
      stopReason,
      usage,
      costUsd: how.costUsd,
      model: row.model,
      latencyMs,
      ...(adapted ? { adapted } : {}),
    };
    sendJson(res, 200, response);
  };

  const fail = (
    res: ServerResponse,
    row: Row,
    type: ErrorType,
    message: string,
    retryable = false,
    trace?: RetryTrace,
  ): void => {
    ledger({
      ...ledgerBase(row),
      usage: { ...ZERO_USAGE },
      costUsd: 0,
      latencyMs: Date.now() - row.started,
      status: type,
      error: message,
      attempts: trace?.attempts ?? 0,
      replayed: false,
      ...(trace && trace.retried.length > 0 ? { retried: trace.retried } : {}),
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
    await chat(grant, { body: parsed.data, chars: body.text.length, row }, res);
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
  unixServer.keepAliveTimeout = KEEP_ALIVE_MS;
  await listen(unixServer, socketPath);
  await chmod(socketPath, 0o600);
  let tcpServer: Server | undefined;
  let tcpUrl: string | undefined;
  if (opts.tcp) {
    const { host, port } = opts.tcp === true ? { host: '127.0.0.1', port: 0 } : opts.tcp;
    tcpServer = createServer(listener);
    tcpServer.keepAliveTimeout = KEEP_ALIVE_MS;
    await listen(tcpServer, port, host);
    const address = tcpServer.address();
    if (address && typeof address === 'object') tcpUrl = `http://${host}:${address.port}`;
  }

  return {
    url: `unix:${socketPath}`,
    socketPath,
    ...(tcpUrl ? { tcpUrl } : {}),
    issueToken(grant, given) {
      const resolved = resolve(grant.model);
      if (!resolved.ok) throw new Error(resolved.error.message);
      const token = given ?? `hat_${randomBytes(24).toString('base64url')}`;
      tokens.set(token, { ...grant });
      return token;
    },
    revokeToken: (token) => void tokens.delete(token),
    spentUsd: () => budget.spentUsd(),
    budgetReached: () => budget.reached(),
    replayMisses: () => misses,
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

/** A parsed chat request, its size in characters (for the cost estimate) and its ledger row. */
interface Call {
  body: ChatRequest;
  chars: number;
  row: Row;
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
