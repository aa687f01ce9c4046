import type { Archive, LlmCallInput } from '../../archive/index.ts';
import type { BatchRouter } from '../../llm/index.ts';
import {
  type BatchEndpoint,
  type BatchRounds,
  type BatchRoundsOptions,
  createBatchRounds,
  createBatchRouter,
} from '../evaluation/index.ts';
import type { RunConfig } from './run-config.ts';

/** What of the run's gateway the rounds use. */
interface BatchGateway {
  batchEndpoint?: BatchEndpoint | null;
  useBatchRouter?(router: BatchRouter): void;
  reserveBatch?: BatchRoundsOptions['reserve'];
}

/**
 * With `--batch`: the evaluation's rounds over the task model's batch endpoint, their router put in front of
 * the gateway's calls, and the one line that says what is batched. Empty without `--batch`.
 */
export function batchRounds(
  archive: Archive,
  gateway: BatchGateway,
  ledger: (row: LlmCallInput) => void,
  plan: { runId: string; config: Pick<RunConfig, 'batch' | 'batchPollSec'> },
  progress: (line: string) => void,
): { batch?: BatchRounds } {
  const endpoint = gateway.batchEndpoint;
  if (!plan.config.batch || !endpoint || !gateway.useBatchRouter || !gateway.reserveBatch) return {};
  const router = createBatchRouter(archive, progress);
  gateway.useBatchRouter(router);
  progress(
    `--batch: the TaskAgent's calls on single-reply tasks go through ${endpoint.record.id}'s batch endpoint at ` +
      "half price, in rounds; the MetaAgent's calls and workspace tasks are not batched",
  );
  return {
    batch: createBatchRounds({
      archive,
      router,
      api: endpoint.api,
      provider: endpoint.provider,
      model: endpoint.record,
      reserve: gateway.reserveBatch,
      ledger,
      progress,
      runId: plan.runId,
      pollCapSec: plan.config.batchPollSec,
    }),
  };
}
