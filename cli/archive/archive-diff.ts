import type { VariantView } from '../../archive/index.ts';
import { variantDiff } from '../../archive/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import { out, printJson } from './archive-output.ts';
import { openVariantRef, variantOf, withVariant } from './archive-refs.ts';

/** `archive diff RUN:VARIANT [[RUN:]VARIANT]`: the change against its parent, or another variant of the run. */
export async function diffVariants(
  runsDir: string,
  a: string,
  b: string | undefined,
  json: boolean,
): Promise<number> {
  return withVariant(runsDir, a, async (run, v) => {
    let base: VariantView;
    if (b === undefined) {
      if (v.parent === null)
        throw new UsageError(
          `Variant ${v.id} of run ${run.id} is the initial agent: it has no parent to diff against.`,
        );
      base = variantOf(run, v.parent);
    } else if (/^\d+$/.test(b)) {
      base = variantOf(run, Number(b));
    } else {
      const other = openVariantRef(runsDir, b);
      base = other.variant;
      if (other.run.dir !== run.dir) {
        other.run.reader.close();
        throw new UsageError(
          "diff compares variants of one run (their commits live in that run's variants.git).",
        );
      }
      other.run.reader.close();
    }
    const noCommit = [base, v].find((x) => x.commit === null);
    if (noCommit !== undefined) {
      throw new UsageError(
        `Variant ${noCommit.id} of run ${run.id} has no commit${noCommit.failureReason ? ` (${noCommit.failureReason})` : ''}: there is no change to show.`,
      );
    }
    const result = await variantDiff(run.dir, base.commit!, v.commit!);
    if (!result.ok) {
      process.stderr.write(`hyperagents archive diff: git could not diff the variants: ${result.reason}\n`);
      return 1;
    }
    if (json) printJson({ run: run.id, from: base.id, to: v.id, patch: result.patch });
    else out(result.patch === '' ? `variants ${base.id} and ${v.id} have the same code` : result.patch);
    return 0;
  });
}
