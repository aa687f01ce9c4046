import { describe, expect, it } from 'vitest';
import type { VariantView } from '../../archive/index.ts';
import { loopCommandWords } from '../shared/self-command.ts';
import { unfinishedNotes } from './archive.ts';
import { generationsCell } from './archive-runs.ts';

/** How this process would start generate-loop again (npx under npm). */
const loop = loopCommandWords().join(' ');

const variant = (id: number, outcome: VariantView['outcome']) => ({ id, outcome });

describe('how archive list reads generations', () => {
  it.each([
    [{ generations: 3, generationsPlanned: 10 }, '3/10'],
    [{ generations: 2, generationsPlanned: 2 }, '2/2'],
    [{ generations: 3, generationsPlanned: 2 }, '2/2 +1 beyond'],
    [{ generations: 4, generationsPlanned: null }, '4'],
  ])('%o reads "%s"', (run, text) => expect(generationsCell(run)).toBe(text));

  it('says how to finish a variant left past a smaller --generations, and how to resume an interrupted run', () => {
    const open = [variant(0, 'evaluated'), variant(1, 'evaluated'), variant(3, 'in_progress')];
    expect(unfinishedNotes('/r', { state: 'done', generationsPlanned: 2 }, open)).toEqual([
      '',
      'Variant 3 was started before the run was resumed with --generations 2 and is left unfinished; to ' +
        `finish it: ${loop} --resume /r --generations 3`,
    ]);
    expect(unfinishedNotes('/r', { state: 'interrupted', generationsPlanned: 5 }, open)).toEqual([
      '',
      'The run was interrupted: the process running it ended without stopping it. Continue it with: ' +
        `${loop} --resume /r`,
    ]);
    expect(unfinishedNotes('/r', { state: 'running', generationsPlanned: 2 }, open)).toEqual([]);
  });
});
