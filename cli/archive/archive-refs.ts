import {
  type ArchiveReader,
  archiveFile,
  findRun,
  openArchiveReader,
  parseVariantRef,
  type VariantView,
} from '../../archive/index.ts';
import { assertReadableArchive, refusalOf } from '../shared/run-ref.ts';
import { UsageError } from '../shared/usage-error.ts';

export { parseVariantRef };

export interface OpenedRun {
  id: string;
  dir: string;
  reader: ArchiveReader;
}

const listing = (known: readonly string[]): string =>
  known.length === 0 ? 'There are no runs there.' : `Runs there: ${known.join(', ')}.`;

/** Opens a run named by id (under `runsDir`) or by folder, or throws a UsageError naming the runs there. */
export function openRun(runsDir: string, ref: string): OpenedRun {
  const found = findRun(runsDir, ref);
  if (!found.ok) {
    throw new UsageError(
      `${found.reason}. ${listing(found.known)} Pass a run id under --runs (default ./runs) or the path of a run folder.`,
    );
  }
  assertReadableArchive(found.dir, 'browse');
  try {
    return {
      id: found.id,
      dir: found.dir,
      reader: openArchiveReader(archiveFile(found.dir)),
    };
  } catch (error) {
    throw refusalOf(error);
  }
}

/** The variant `id` of a run, or a UsageError listing the variants it has. */
export function variantOf(run: OpenedRun, id: number): VariantView {
  const variant = run.reader.variant(id);
  if (variant !== null) return variant;
  const ids = run.reader.variants().map((v) => v.id);
  const shown =
    ids.length > 30 ? `${ids.slice(0, 30).join(', ')}, ... (${ids.length} in all)` : ids.join(', ');
  throw new UsageError(
    `Run ${run.id} has no variant ${id}. ${ids.length === 0 ? 'It has no variants yet.' : `Its variants: ${shown}.`}`,
  );
}

/** Parses `RUN:VARIANT` and opens both, or throws a UsageError saying what is wrong. */
export function openVariantRef(runsDir: string, ref: string): { run: OpenedRun; variant: VariantView } {
  const parsed = parseVariantRef(ref);
  if (parsed === null) {
    throw new UsageError(
      `"${ref}" is not RUN:VARIANT (for example 20260101-abc:3). List runs with hyperagents archive list.`,
    );
  }
  const run = openRun(runsDir, parsed.run);
  try {
    return { run, variant: variantOf(run, parsed.variant) };
  } catch (error) {
    run.reader.close();
    throw refusalOf(error);
  }
}

/**
 * Runs `body` on the opened run and closes its archive afterwards. A part of the archive that turns out
 * unreadable on the way is refused, naming the file.
 */
export function withRun<T>(runsDir: string, ref: string, body: (run: OpenedRun) => T): T {
  const run = openRun(runsDir, ref);
  try {
    return body(run);
  } catch (error) {
    throw refusalOf(error);
  } finally {
    run.reader.close();
  }
}

/** Runs `body` on the variant named by `RUN:VARIANT` and closes its archive afterwards, as withRun does. */
export async function withVariant(
  runsDir: string,
  ref: string,
  body: (run: OpenedRun, variant: VariantView) => number | Promise<number>,
): Promise<number> {
  const { run, variant } = openVariantRef(runsDir, ref);
  try {
    return await body(run, variant);
  } catch (error) {
    throw refusalOf(error);
  } finally {
    run.reader.close();
  }
}
