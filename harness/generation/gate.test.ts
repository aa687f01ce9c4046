import { describe, expect, it } from 'vitest';
import { typecheckNeeded } from './gate.ts';

describe('typecheckNeeded', () => {
  it.each([
    [['agents/task/prompt.md'], false],
    [['agents/task/prompt.md', 'agents/meta/prompt.md', 'agents/notes.txt'], false],
    [['agents/task/main.ts'], true],
    [['agents/task/prompt.md', 'agents/tools/helper.mts'], true],
    [['agents/types.d.ts'], true],
    [['agents/lib/util.js'], true],
    [['agents/data/table.json'], true],
    [['agents/task/Main.TSX'], true],
  ])('%j changed: %s', (files, expected) => {
    expect(typecheckNeeded({ files })).toBe(expected);
  });
});
