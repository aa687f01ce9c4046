import { randomBytes } from 'node:crypto';
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type BudgetStop, type CallEstimate, createBudget, type Reservation } from './budget.ts';
import type { BatchRouter } from './gateway-batch.ts';
import { type GatewayState, handle, resolve } from './gateway-calls.ts';
import { sendError } from './gateway-http.ts';
import type { GatewayOptions, TokenGrant } from './gateway-types.ts';
import type { Normalizer } from './recorder.ts';
import { clearStaleSocket, closeServer, listen, usableSocketPath } from './unix-socket.ts';

export type { BudgetStop } from './budget.ts';
export type { GatewayLedgerRow, GatewayOptions, TokenGrant } from './gateway-types.ts';
export { TASK_HEADER } from './gateway-types.ts';

/**
 * How long the gateway keeps an idle connection open: longer than agents' HTTP clients keep one (Node's
 * default agent: 5 s), so that it is always the agent that closes an idle connection. A gateway closing
 * first can cross the agent's next request on that connection, which the agent reports as a failed model
 * call: a task's outcome would then depend on timing (more so on a loaded machine or through a relay).
 */
const KEEP_ALIVE_MS = 65_000;

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
  /** Where the money stood when the budget refused its first call; null while none was. */
  budgetStop(): BudgetStop | null;
  /** Calls that found no recorded response in replay mode. */
  replayMisses(): number;
  /** A new budget for the calls from now on, in USD of this gateway's spend (see Budget.setLimit). */
  setBudgetUsd(usd: number): void;
  /**
   * The run is stopping: every call under way ends now (one waiting to be retried or for the budget
   * included), and every later call fails at once with `reason`.
   */
  stopCalls(reason: string): void;
  /** With `--batch`: from now on every chat call is first put to `router` (see BatchRouter). */
  useBatchRouter(router: BatchRouter): void;
  /**
   * Holds a pending batch's most cost in the budget, as a call in flight holds its own: `settle` with what the
   * batch cost once it is collected. Waits, or is refused, as a call would be (`Budget.reserve`).
   */
  reserveBatch(estimate: CallEstimate, model: string, signal?: AbortSignal): Promise<Reservation>;
  close(): Promise<void>;
}

const IDENTITY: Normalizer = { normalize: (v) => v, restore: (v) => v };

export { MAX_BODY_BYTES } from './gateway-http.ts';

/** Starts the LLM gateway (wire protocol: contracts "Wire protocol of the LLM gateway"). */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const state: GatewayState = {
    opts,
    tokens: new Map(),
    budget: createBudget(opts.budgetUsd),
    normalizer: opts.normalizer ?? IDENTITY,
    misses: 0,
    calls: new Set(),
    stopping: null,
    batch: null,
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(state, req, res).catch((error: unknown) => {
      opts.onWarning(`internal error: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent)
        sendError(res, 'internal', `gateway internal error: ${(error as Error).message}`, true);
      else res.destroy();
    });
  };
  const servers = await listenAll(opts, listener);
  return {
    url: `unix:${servers.socketPath}`,
    socketPath: servers.socketPath,
    ...(servers.tcpUrl ? { tcpUrl: servers.tcpUrl } : {}),
    issueToken(grant, given) {
      const resolved = resolve(state, grant.model);
      if (!resolved.ok) throw new Error(resolved.error.message);
      const token = given ?? `hat_${randomBytes(24).toString('base64url')}`;
      state.tokens.set(token, { ...grant });
      return token;
    },
    revokeToken: (token) => void state.tokens.delete(token),
    spentUsd: () => state.budget.spentUsd(),
    budgetReached: () => state.budget.reached(),
    budgetStop: () => state.budget.stop(),
    replayMisses: () => state.misses,
    setBudgetUsd: (usd) => state.budget.setLimit(usd),
    stopCalls(reason) {
      state.stopping = reason;
      for (const call of state.calls) call.abort();
    },
    useBatchRouter(router) {
      state.batch = router;
    },
    reserveBatch: (estimate, model, signal) => state.budget.reserve(estimate, model, signal),
    async close() {
      state.tokens.clear();
      await servers.close();
    },
  };
}

/** The unix socket (owner-only) the agents reach, and the TCP port when asked for. */
async function listenAll(
  opts: GatewayOptions,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ socketPath: string; tcpUrl?: string; close(): Promise<void> }> {
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
    socketPath,
    ...(tcpUrl ? { tcpUrl } : {}),
    async close() {
      await Promise.all([closeServer(unixServer), tcpServer ? closeServer(tcpServer) : undefined]);
      await unlink(socketPath).catch(() => undefined);
    },
  };
}
