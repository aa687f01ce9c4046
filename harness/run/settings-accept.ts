import { z } from 'zod';
import { ACCEPT_POLICIES } from '../evaluation/index.ts';
import type { Setting } from './setting.ts';
import * as schema from './setting-schemas.ts';

/** Default of `--alpha`: a false `better` (a child admitted as better that is not) at most one time in 20. */
export const DEFAULT_ALPHA = 0.05;
/**
 * Defaults of `--futility-alpha` and `--futility-margin`: a child better than its parent by an eighth of the
 * score or more is stopped as `worse` at most three times in ten. Chosen by replaying full evaluations on seeds
 * the measurement does not use, as the pair that ran the fewest tasks without stopping a child that had gained
 * 0.05 or more, with the rate at most 0.3 (docs/acceptance.md, "The futility defaults").
 */
export const DEFAULT_FUTILITY_ALPHA = 0.3;
export const DEFAULT_FUTILITY_MARGIN = 0.125;

const MARGIN = 'must be a gain in mean score from 0 to below 1 (0.1: a tenth of the score)';
const margin = () => z.number({ error: MARGIN }).min(0, { error: MARGIN }).lt(1, { error: MARGIN });

const RATE = 'must be an error rate above 0 and below 1 (0.05: one time in 20)';
const rate = () => z.number({ error: RATE }).gt(0, { error: RATE }).lt(1, { error: RATE });

/**
 * How a child is accepted against its parent (docs/acceptance.md). They decide which tasks run and what is made
 * of the results, never what one task's result is, so they are not task settings (`result: 'none'`): a result
 * is the same under either policy, and the result cache is shared between them. A resumed run keeps them, since
 * a child half-decided under one policy cannot be finished under another.
 */
export const ACCEPT_SETTINGS = [
  {
    option: 'accept',
    field: 'accept',
    // A run stored before the setting existed evaluated every child in full.
    schema: schema.oneOf(ACCEPT_POLICIES).default('full'),
    type: 'string',
    default: 'full',
    describe:
      "how a child's full evaluation ends: full (every task) or sequential (tasks in rounds, each paired with " +
      "the parent's result on it; stops once the child is shown better or worse, and says better, worse or " +
      'undecided: see docs/acceptance.md)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'alpha',
    field: 'alpha',
    schema: rate().default(DEFAULT_ALPHA),
    type: 'number',
    default: DEFAULT_ALPHA,
    describe:
      'with --accept sequential: the error rate of `better`, the most often a child no better than its parent is ' +
      'decided better',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'futility-alpha',
    field: 'futilityAlpha',
    schema: rate().default(DEFAULT_FUTILITY_ALPHA),
    type: 'number',
    default: DEFAULT_FUTILITY_ALPHA,
    describe:
      'with --accept sequential: the error rate of `worse`, the most often a child better than its parent by ' +
      '--futility-margin or more is stopped early as worse (larger stops more children sooner)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'futility-margin',
    field: 'futilityMargin',
    schema: margin().default(DEFAULT_FUTILITY_MARGIN),
    type: 'number',
    default: DEFAULT_FUTILITY_MARGIN,
    describe:
      'with --accept sequential: the least gain in mean score over its parent a child is evaluated further for; ' +
      'one shown short of it is stopped early as worse (0: only a child shown worse than its parent)',
    resume: 'keep',
    result: 'none',
  },
] as const satisfies readonly Setting[];
