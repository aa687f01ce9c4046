import type { Archive, LlmCallInput } from '../../archive/index.ts';
import { errorLine } from '../process/index.ts';
import type { RunEvent } from './run-events.ts';

/**
 * Writes each model call the gateway reports into the run's ledger, and tells the progress display of it and
 * of the faults retried on the way. A call the ledger cannot hold (a full disk) would be missing from the spend
 * a resume counts: `fail` is told, and the caller halts. Must not throw: the gateway calls it.
 */
export function ledgerWriter(
  archive: Pick<Archive, 'insertLlmCall'>,
  fail: (error: Error) => void,
  emit: (event: RunEvent) => void = () => undefined,
): (row: LlmCallInput) => void {
  return (row) => {
    try {
      archive.insertLlmCall(row);
    } catch (error) {
      fail(new Error(`the ledger could not record a model call: ${errorLine(error)}`, { cause: error }));
      return;
    }
    emit({ type: 'llm_call', variant: row.variantId, role: row.role, costUsd: row.costUsd });
    const attempts = row.attempts ?? 1;
    const faults = attempts - (row.status === 'ok' ? 1 : 0);
    if (attempts > 0 && faults > 0)
      emit({ type: 'model_faults', variant: row.variantId, faults, retries: attempts - 1 });
  };
}
