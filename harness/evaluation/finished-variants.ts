import { type Archive, type EvaluationRow, isFinalStep, type VariantRow } from '../../archive/index.ts';

/**
 * A finished variant (`done` or `failed`) never changes in the run that finished it, so what a generation
 * reads about the archive (every variant for parent selection, the lineage's evaluations for the evals
 * folder, the best so far) is read and validated once per process, not again at every generation:
 * the harness's time per generation stays flat as the archive grows. Unfinished variants are read afresh.
 */
export interface FinishedVariants {
  /** Every variant, in id order. */
  variants(): VariantRow[];
  /** A variant's evaluation rows. */
  evaluations(id: number): EvaluationRow[];
}

const memos = new WeakMap<Archive, FinishedVariants>();

/** The memo of `archive` (one per archive object, so every caller in the process shares it). */
export function finishedVariants(archive: Archive): FinishedVariants {
  const known = memos.get(archive);
  if (known !== undefined) return known;
  const rows = new Map<number, VariantRow>();
  const evaluations = new Map<number, EvaluationRow[]>();
  const memo: FinishedVariants = {
    variants() {
      const out: VariantRow[] = [];
      for (const { id, step } of archive.variantSteps()) {
        const cached = rows.get(id);
        if (cached !== undefined && cached.step === step) {
          out.push(cached);
          continue;
        }
        const row = archive.getVariant(id);
        if (row === undefined) continue;
        if (isFinalStep(row.step)) rows.set(id, row);
        out.push(row);
      }
      return out;
    },
    evaluations(id) {
      const cached = evaluations.get(id);
      if (cached !== undefined) return cached;
      const read = archive.listEvaluations(id);
      if (isFinalStep(rows.get(id)?.step ?? '')) evaluations.set(id, read);
      return read;
    },
  };
  memos.set(archive, memo);
  return memo;
}
