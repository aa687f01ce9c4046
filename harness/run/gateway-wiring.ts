import path from 'node:path';
import type { LlmCallInput } from '../../archive/index.ts';
import { gatewaySocketFile, simBatchesDir } from '../../archive/index.ts';
import type { ModelProvider, ParsedSimScript } from '../../llm/index.ts';
import {
  connectBatch,
  connectModel,
  createFailureWatch,
  createNormalizer,
  createRecordWriter,
  createSimBatch,
  createSimModel,
  type FailureWatch,
  type ModelHealthEvent,
  type ModelRecord,
  type ReplayBook,
  type RetryInfo,
  resolveModel,
  runPlaceholders,
  type SimBatchKnobs,
  type SimModel,
  startGateway,
  withRetries,
} from '../../llm/index.ts';
import { attemptOfCustomId, type BatchEndpoint, type DomainTasks } from '../evaluation/index.ts';
import { firstContact, type RetryNotice } from './first-contact.ts';
import type { RunDeps } from './run.ts';
import type { SimConfig } from './run-config.ts';
import { PROJECT_ROOT } from './run-config.ts';

export interface GatewayPlan {
  seed: number;
  domains: readonly DomainTasks[];
  /** The models the run uses (meta and task); tokens may use only these. */
  models: readonly string[];
  script: ParsedSimScript | undefined;
  sim: SimConfig;
  /** Append every response to this file. */
  record: string | null;
  /** Answer every call from this recording; then no provider is created. */
  replay: ReplayBook | null;
  /** Where keys and base URLs come from (the environment with `.env` under it, see `loadEnv`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Told each time a call to a real model is retried. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told when a model has failed every attempt for a while (its calls are being retried), and when it answers again. */
  onModelHealth?: (event: ModelHealthEvent) => void;
  /** Also listen on TCP here, for agents on queue workers (reached through their relay). */
  tcp?: { host: string; port: number };
  /** Told what the gateway could not do that no reply shows (see `GatewayOptions.onWarning`). */
  onWarning: (message: string) => void;
  /** With `--batch`: the task model, whose batch endpoint is connected (the sim's behaving as `sim` says). */
  batch?: { taskModel: string; sim: SimBatchKnobs | null };
}

/**
 * The gateway factory for a run: providers for the run's models (the simulated model told every task and
 * its gold answer, which stay in this process; real models through `connectModel`), each retried by the
 * layer's policy so that the sim's injected faults are retried like real ones.
 */
export function gatewayFactory(plan: GatewayPlan): RunDeps['startGateway'] {
  return async (runDir: string, onCall: (row: LlmCallInput) => void, budgetUsd: number | null) => {
    const watch = createFailureWatch({ report: (event) => plan.onModelHealth?.(event) });
    const served = plan.replay === null ? connectAll(plan, watch) : new Map<string, Served>();
    const batchEndpoint = plan.batch === undefined ? null : await connectBatchEndpoint(plan, served, runDir);
    const normalizer = createNormalizer(
      runPlaceholders({ runDir, runId: path.basename(runDir), projectRoot: PROJECT_ROOT }),
    );
    const gateway = await startGateway({
      socketPath: gatewaySocketFile(runDir),
      providers: (id) => served.get(id)?.provider,
      models: plan.models,
      records: (id) => served.get(id)?.record,
      onCall,
      onWarning: plan.onWarning,
      normalizer,
      ...(plan.tcp === undefined ? {} : { tcp: plan.tcp }),
      ...(budgetUsd === null ? {} : { budgetUsd }),
      ...(plan.record === null ? {} : { record: createRecordWriter(plan.record) }),
      ...(plan.replay === null ? {} : { replay: plan.replay }),
    });
    const unreachable = (): string | null => {
      for (const { guard } of served.values()) {
        const failure = guard?.failure();
        if (failure) return failure.message;
      }
      return null;
    };
    return Object.assign(gateway, { unreachable, batchEndpoint });
  };
}

/**
 * The batch endpoint of the task model. The sim's answers each request as its `complete` would (the raw
 * model: a simulated fault is a request the batch did not answer); it serves the sim alone.
 */
async function connectBatchEndpoint(
  plan: GatewayPlan,
  served: Map<string, Served>,
  runDir: string,
): Promise<BatchEndpoint | null> {
  const id = plan.batch?.taskModel;
  const model = id === undefined ? undefined : served.get(id);
  if (id === undefined || model === undefined) return null;
  if (model.sim !== undefined) {
    const contextOf = (customId: string) => ({
      runId: '',
      variantId: null,
      role: 'task' as const,
      attempt: attemptOfCustomId(customId),
    });
    // Its batches are kept in the run folder, so a resumed run finds a pending one (as a provider would).
    const api = createSimBatch(model.sim, contextOf, plan.batch?.sim ?? {}, simBatchesDir(runDir));
    return { api, provider: model.provider, record: model.record };
  }
  const connected = await connectBatch(model.record, plan.env);
  if (!connected.ok) throw new Error(connected.message);
  return { api: connected.batch, provider: model.provider, record: model.record };
}

/** A model the run serves: its provider, and its record (the sim's carries the nominal price). */
interface Served {
  provider: ModelProvider;
  record: ModelRecord;
  /** Real models only: whether the model could be reached at all. */
  guard?: ReturnType<typeof firstContact>;
  /** The sim alone: the model itself, without retries. */
  sim?: SimModel;
}

/**
 * One provider per model of the run, its attempts watched by `watch`. The caller checked the keys; a
 * missing one here is a bug.
 */
function connectAll(plan: GatewayPlan, watch: FailureWatch): Map<string, Served> {
  const served = new Map<string, Served>();
  for (const id of new Set(plan.models)) {
    if (id === 'sim') {
      const sim = simModel(plan);
      const retried = withRetries(sim, {
        policy: { baseMs: plan.sim.retryMs },
        onRetry: (info) => watch.failed(id, info.error),
      });
      served.set(id, { provider: watch.wrap(id, retried), record: sim.model, sim });
      continue;
    }
    const resolved = resolveModel(id);
    if (!resolved.ok) throw new Error(resolved.error.message);
    const guard = firstContact(id, plan.onRetry);
    const onRetry = (info: RetryInfo): void => {
      guard.onRetry(info);
      watch.failed(id, info.error);
    };
    const connected = connectModel(resolved.model, plan.env, { retry: { onRetry } });
    if (!connected.ok) throw new Error(connected.message);
    served.set(id, {
      provider: guard.wrap(watch.wrap(id, connected.provider)),
      record: resolved.model,
      guard,
    });
  }
  return served;
}

function simModel(plan: GatewayPlan): SimModel {
  const sim = createSimModel({
    seed: plan.seed,
    domains: plan.domains.map((d) => d.domain.name),
    ...(plan.script === undefined ? {} : { script: plan.script }),
    pricePerMTok: plan.sim.pricePerMTok,
    noise: plan.sim.noise,
    landscape: plan.sim.landscape,
    knobs: {
      ...(plan.sim.latency === null ? {} : { latency: plan.sim.latency }),
      faultRate: plan.sim.faultRate,
      faults: plan.sim.faults,
      retryAfterMs: plan.sim.retryMs,
    },
  });
  for (const { domain, splits } of plan.domains) {
    const tasks = (['train', 'val', 'test'] as const).flatMap((split) =>
      (splits[split] ?? []).map((task) => ({ split, task })),
    );
    sim.registerTasks(
      domain.name,
      tasks.map(({ split, task }) => ({
        id: task.id,
        input: task.input,
        answer: domain.goldResponse(task),
        split,
        ...(task.workspace ? { workspace: task.workspace } : {}),
        ...(task.canary === true ? { canary: true } : {}),
      })),
    );
  }
  return sim;
}
