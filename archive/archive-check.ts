import { VARIANT_STEPS } from './archive.ts';
import { openArchiveReader, UnreadableArchiveError } from './read.ts';

export type ArchiveCheck = { ok: true } | { ok: false; why: string };

export interface ArchiveCheckOptions {
  /**
   * Reads every page of the file, as SQLite's quick check does: for a command that writes into the
   * archive or continues from it, where a damaged page found later would stop it half-way.
   */
  everyPage?: boolean;
  /**
   * Every variant is in a generation step this version knows. A reader shows an unknown step as "in
   * progress" (a newer version may add steps); the harness cannot continue from one.
   */
  knownSteps?: boolean;
}

const STEPS: readonly string[] = VARIANT_STEPS;

/**
 * Whether `file` is a run archive this version can read: a SQLite file holding the archive's tables,
 * whose run and variants read back. Never writes. Failures of the file come back as data saying what is
 * wrong; only a programmer error is thrown.
 */
export function checkArchive(file: string, options: ArchiveCheckOptions = {}): ArchiveCheck {
  try {
    const reader = openArchiveReader(file);
    try {
      const damage = options.everyPage ? reader.damage() : null;
      if (damage !== null) return { ok: false, why: `it is damaged: ${damage}` };
      reader.run();
      if (options.knownSteps) {
        const unknown = reader.variants().find((v) => !STEPS.includes(v.step));
        if (unknown !== undefined) {
          return {
            ok: false,
            why:
              `variant ${unknown.id} has step ${JSON.stringify(unknown.step)}, which this version does not know: ` +
              `it knows ${VARIANT_STEPS.join(', ')}`,
          };
        }
      }
      return { ok: true };
    } finally {
      reader.close();
    }
  } catch (error) {
    if (error instanceof UnreadableArchiveError) return { ok: false, why: error.why };
    throw error;
  }
}
