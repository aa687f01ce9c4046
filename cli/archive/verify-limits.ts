import type { UnpackLimits } from '../../archive/index.ts';
import { DEFAULT_UNPACK_LIMITS } from '../../archive/index.ts';
import { UsageError } from '../shared/usage-error.ts';

/** The flag that raises each unpacking limit, and the unit it takes. */
export const LIMIT_FLAGS: Record<keyof UnpackLimits, { flag: string; unit: number }> = {
  fileBytes: { flag: '--max-file-mb', unit: 1024 * 1024 },
  totalBytes: { flag: '--max-total-mb', unit: 1024 * 1024 },
  ratio: { flag: '--max-ratio', unit: 1 },
  entries: { flag: '--max-files', unit: 1 },
};

/** An unpacking limit of verify, in the unit its flag takes (see LIMIT_FLAGS). */
export function limitOption(describe: string, limit: keyof UnpackLimits) {
  const { unit } = LIMIT_FLAGS[limit];
  return {
    type: 'number',
    requiresArg: true,
    describe,
    default: DEFAULT_UNPACK_LIMITS[limit] / unit,
  } as const;
}

/** The limits the flags give, each checked: a whole number of at least 1. */
export function unpackLimits(args: Record<keyof UnpackLimits, number>): UnpackLimits {
  const limits = { ...DEFAULT_UNPACK_LIMITS };
  for (const key of Object.keys(LIMIT_FLAGS) as (keyof UnpackLimits)[]) {
    const { flag, unit } = LIMIT_FLAGS[key];
    const value = args[key];
    if (!Number.isSafeInteger(value) || value < 1)
      throw new UsageError(`${flag} must be a whole number of at least 1, not ${value}.`);
    limits[key] = value * unit;
  }
  return limits;
}
