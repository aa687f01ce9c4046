import type { IncomingMessage, ServerResponse } from 'node:http';
import { adaptRequest } from './adapt.ts';
import { type createBudget, maxCallCost } from './budget.ts';
import { type BatchRouter, PARKED_MESSAGE } from './gateway-batch.ts';
import { type Call, ledgerBase, type Row, safeComplete, safeProvider, taskOf } from './gateway-call.ts';
import { MAX_BODY_BYTES, readBody, sendError, sendJson } from './gateway-http.ts';
import type { GatewayLedgerRow, GatewayOptions, TokenGrant } from './gateway-types.ts';
import type { RetryTrace } from './provider.ts';
import {
  type Normalizer,
  normalizeRequest,
  type RecordedRequest,
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
  type ModelsResponse,
  ZERO_USAGE,
} from './types.ts';

/** How the gateway serves one request: routing, authentication, replay, budget, provider call, ledger. */
/** What every request handler of one gateway shares: its options, budget, ledger and model lookups. */
export interface GatewayState {
  opts: GatewayOptions;
  tokens: Map<string, TokenGrant>;
  budget: ReturnType<typeof createBudget>;
  normalizer: Normalizer;
  /** Replay requests that found no recorded response. */
  misses: number;
  /** Calls under way (running or waiting for the budget): each one's cancel. */
  calls: Set<AbortController>;
  /** Why the gateway takes no more calls (the run is stopping), or null while it serves them. */
  stopping: string | null;
  /** With `--batch`: the harness's say over each TaskAgent call (see BatchRouter). */
  batch: BatchRouter | null;
}

/** Routes a request: authenticates its token, then lists models or parses and serves a chat call. */
export async function handle(state: GatewayState, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
  const grant = token === undefined ? undefined : state.tokens.get(token);
  if (!grant) {
    req.resume();
    const why = token === undefined ? 'missing bearer token' : 'unknown or revoked token';
    return sendError(res, 'auth', `${why}: send "Authorization: Bearer $HYPERAGENTS_LLM_TOKEN"`);
  }
  if (route === 'GET /v1/models') {
    req.resume();
    const models: ModelsResponse = {
      models: availableModels(state, grant.model).map((m) => ({
        id: m.id,
        nativeTools: m.nativeTools,
        contextWindow: m.contextWindow,
        maxOutput: m.maxOutput,
        simulated: m.simulated,
      })),
    };
    return sendJson(res, 200, models);
  }
  const task = taskOf(req);
  const row: Row = {
    ts: new Date().toISOString(),
    started: Date.now(),
    grant,
    model: grant.model,
    ...(task === undefined ? {} : { task }),
  };
  const body = await readBody(req);
  if (body.kind === 'aborted') return;
  if (body.kind === 'too_large') {
    res.setHeader('connection', 'close');
    return fail(
      state,
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
    return fail(
      state,
      res,
      row,
      'bad_request',
      `request body is not valid JSON: ${(error as Error).message}`,
    );
  }
  const parsed = ChatRequestSchema.safeParse(json);
  if (!parsed.success) {
    return fail(
      state,
      res,
      row,
      'bad_request',
      `invalid chat request:\n${formatIssues(parsed.error.issues)}`,
    );
  }
  await chat(state, grant, { body: parsed.data, chars: body.text.length, row }, res);
}

/**
 * Serves one chat call: the model must be known and served by this run; in replay mode the answer comes from
 * the recording; otherwise the budget reserves the call's maximum cost, the provider answers (with its
 * retries), the actual cost is settled and the reply is recorded when recording.
 */
async function chat(state: GatewayState, grant: TokenGrant, call: Call, res: ServerResponse): Promise<void> {
  const { opts, normalizer } = state;
  const { body, row } = call;
  const modelId = body.model ?? grant.model;
  row.model = modelId;
  const resolved = resolve(state, modelId);
  if (!resolved.ok) return fail(state, res, row, 'unknown_model', resolved.error.message);
  if (!serves(opts, modelId)) {
    const allowed = availableModels(state, grant.model).map((m) => m.id);
    return fail(
      state,
      res,
      row,
      'unknown_model',
      `model "${modelId}" is not available in this run; use one of: ${allowed.join(', ')}`,
    );
  }
  const model = resolved.model;
  const req: ChatRequest = { ...body, model: modelId };
  const recorded =
    opts.record || opts.replay || state.batch
      ? normalizeRequest(grant.role, modelId, body, normalizer)
      : null;
  const key = recorded === null ? '' : requestKey(recorded);
  if (opts.replay) return replayed(state, opts.replay, grant.role, key, row, res);
  if (state.batch !== null && batchRouted(state, state.batch, { grant, row, key, req, modelId }, res)) return;
  const fitted = adaptRequest(model, req);
  const provider = safeProvider(opts, modelId);
  if (!provider)
    return fail(state, res, row, 'unknown_model', `model "${modelId}" has no provider in this run`);
  if (state.stopping !== null) return fail(state, res, row, 'internal', state.stopping);
  // The caller going away (a killed agent, Ctrl-C) or the run stopping ends the call, whether it runs
  // (its retries included) or waits for the budget.
  const controller = new AbortController();
  state.calls.add(controller);
  res.on('close', () => {
    state.calls.delete(controller);
    if (!res.writableFinished) controller.abort();
  });
  const estimate = maxCallCost(model, fitted.maxTokens, call.chars);
  const reservation = await state.budget.reserve(estimate, modelId, controller.signal);
  if (reservation.status === 'refused') return fail(state, res, row, 'budget_exceeded', reservation.message);
  if (reservation.status === 'cancelled')
    return fail(
      state,
      res,
      row,
      'internal',
      state.stopping ??
        'the caller went away while the call waited for calls in flight to settle (--budget-usd); no model was called',
    );
  const ctx: CallContext = {
    runId: grant.runId,
    variantId: grant.variantId,
    role: grant.role,
    ...(grant.attempt === undefined ? {} : { attempt: grant.attempt }),
  };
  const result = await safeComplete(provider, req, ctx, controller.signal);
  const trace: RetryTrace = result.trace ?? { attempts: 1, retried: [] };
  if (!result.ok) {
    reservation.settle(0);
    return fail(state, res, row, result.error.type, result.error.message, result.error.retryable, trace);
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
    ...(result.response.reportedModel === undefined ? {} : { reportedModel: result.response.reportedModel }),
  };
  if (opts.record && recorded !== null) record(state, opts.record, { key, request: recorded, response });
  answer(state, res, row, response, { costUsd: cost, attempts: trace.attempts, replayed: false, trace });
}

/**
 * A call the batch router answers from the record or parks (true: replied); else (false) an ordinary call.
 * Neither writes a ledger row: an answer from the record was charged when its batch was collected, and a
 * parked call is asked, and charged, in the batch.
 */
function batchRouted(
  state: GatewayState,
  router: BatchRouter,
  call: { grant: TokenGrant; row: Row; key: string; req: ChatRequest; modelId: string },
  res: ServerResponse,
): boolean {
  const { grant, row } = call;
  const routed = router.route({
    role: grant.role,
    variantId: grant.variantId,
    attempt: grant.attempt ?? 0,
    ...(row.task === undefined ? {} : { task: row.task }),
    model: call.modelId,
    key: call.key,
    request: call.req,
  });
  if (routed.kind === 'parked') sendError(res, 'internal', PARKED_MESSAGE, false);
  else if (routed.kind === 'answered')
    answer(state, res, row, routed.response, { costUsd: 0, attempts: 0, replayed: false, ledger: false });
  return routed.kind !== 'ordinary';
}

/** Answers a call from the recording (replay mode calls no model); a request it does not hold fails. */
function replayed(
  state: GatewayState,
  book: ReplayBook,
  role: TokenGrant['role'],
  key: string,
  row: Row,
  res: ServerResponse,
): void {
  const hit = book.next(key);
  if (hit === undefined) {
    state.misses++;
    fail(
      state,
      res,
      row,
      'provider_error',
      `no recorded response for this ${role} request in ${book.file} (replay mode calls no ` +
        'model). The run asked something the recorded run did not: replay with the same options and ' +
        '--seed as the recording, and record again after changing the agents or the harness.',
    );
    return;
  }
  answer(state, res, row, state.normalizer.restore(hit), { costUsd: 0, attempts: 0, replayed: true });
}

/** Appends a reply to the recording; a failure to append is a warning, the call's reply stands. */
function record(
  state: GatewayState,
  writer: RecordWriter,
  entry: { key: string; request: RecordedRequest; response: RecordedResponse },
): void {
  try {
    writer.append({ ...entry, response: state.normalizer.normalize(entry.response) });
  } catch (error) {
    state.opts.onWarning(`could not append to ${writer.file}: ${(error as Error).message}`);
  }
}

/** A reply to the agent, with its ledger row. */
function answer(
  state: GatewayState,
  res: ServerResponse,
  row: Row,
  reply: RecordedResponse,
  how: { costUsd: number; attempts: number; replayed: boolean; trace?: RetryTrace; ledger?: false },
): void {
  const latencyMs = Date.now() - row.started;
  const { message, stopReason, usage, adapted, reportedModel } = reply;
  if (how.ledger !== false)
    ledger(state, {
      ...ledgerBase(row),
      ...(reportedModel === undefined ? {} : { reportedModel }),
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
}

/** An error reply to the agent, with its ledger row. */
function fail(
  state: GatewayState,
  res: ServerResponse,
  row: Row,
  type: ErrorType,
  message: string,
  retryable = false,
  trace?: RetryTrace,
): void {
  ledger(state, {
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
}

function ledger(state: GatewayState, row: GatewayLedgerRow): void {
  try {
    state.opts.onCall(row);
  } catch (error) {
    state.opts.onWarning(`ledger callback failed: ${(error as Error).message}`);
  }
}

/** The run's own record of a model (the sim's nominal price) before the registry's. */
export function resolve(state: GatewayState, id: string): ResolveModelResult {
  const own = state.opts.records?.(id);
  return own ? { ok: true, model: own } : resolveModel(id);
}

function serves(opts: GatewayOptions, id: string): boolean {
  return opts.models ? opts.models.includes(id) : safeProvider(opts, id) !== undefined;
}

/** The token's default model first, then every other model this run serves. */
function availableModels(state: GatewayState, first: string): ModelRecord[] {
  const others = (state.opts.models ?? knownModelIds()).filter(
    (id) => id !== first && serves(state.opts, id),
  );
  return [first, ...others].flatMap((id) => {
    const resolved = resolve(state, id);
    return resolved.ok ? [resolved.model] : [];
  });
}
