import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A small exercise in the Exercism practice layout, written for this project's tests. */
export interface ExerciseFixture {
  name: string;
  instructions: string;
  solutionFile: string;
  stub: string;
  specFile: string;
  spec: string;
  exampleFile: string;
  example: string;
}

export const LEAP_DAYS: ExerciseFixture = {
  name: 'leap-days',
  instructions:
    '# Leap days\n\nWrite `leapDays(from, to)`: how many 29 Februaries fall in the years from..to inclusive.\n',
  solutionFile: 'leap-days.js',
  stub: "export const leapDays = (from, to) => {\n  throw new Error('Remove this line and implement the function');\n};\n",
  specFile: 'leap-days.spec.js',
  spec: [
    "import { leapDays } from './leap-days';",
    '',
    "describe('leapDays', () => {",
    "  test('a single leap year', () => {",
    '    expect(leapDays(2024, 2024)).toBe(1);',
    '  });',
    "  xtest('a century that is not a leap year', () => {",
    '    expect(leapDays(1900, 1900)).toBe(0);',
    '  });',
    "  test.skip('a range across 2000', () => {",
    '    expect(leapDays(1996, 2004)).toEqual(3);',
    '  });',
    '});',
    '',
  ].join('\n'),
  exampleFile: '.meta/proof.ci.js',
  example:
    'const isLeap = (y) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;\n' +
    'export const leapDays = (from, to) => {\n  let n = 0;\n  for (let y = from; y <= to; y++) if (isLeap(y)) n++;\n  return n;\n};\n',
};

export const INITIALS: ExerciseFixture = {
  name: 'initials',
  instructions:
    '# Initials\n\nWrite `initials(name: string): string`: the first letter of each word, upper-cased.\n',
  solutionFile: 'initials.ts',
  stub: 'export function initials(name: string): string {\n  throw new Error("Remove this line and implement the function");\n}\n',
  specFile: 'initials.test.ts',
  spec: [
    "import { describe, expect, it, xit } from '@jest/globals';",
    "import { initials } from './initials.ts';",
    '',
    "describe('initials', () => {",
    "  it('two words', () => {",
    "    expect(initials('ada lovelace')).toBe('AL');",
    '  });',
    "  xit('extra spaces', () => {",
    "    expect(initials('  grace   hopper ')).toStrictEqual('GH');",
    '  });',
    '});',
    '',
  ].join('\n'),
  exampleFile: '.meta/proof.ci.ts',
  example:
    "export function initials(name: string): string {\n  return name.trim().split(/\\s+/).map((w) => w[0]!.toUpperCase()).join('');\n}\n",
};

/** Writes exercises as folders under `dir` (created if needed) and returns `dir`. */
export function writeExercises(dir: string, exercises: readonly ExerciseFixture[]): string {
  for (const e of exercises) {
    const folder = path.join(dir, e.name);
    const write = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
      writeFileSync(path.join(folder, rel), text);
    };
    write('.docs/instructions.md', e.instructions);
    write(
      '.meta/config.json',
      `${JSON.stringify({ files: { solution: [e.solutionFile], test: [e.specFile], example: [e.exampleFile] } }, null, 2)}\n`,
    );
    write(e.solutionFile, e.stub);
    write(e.specFile, e.spec);
    write(e.exampleFile, e.example);
  }
  return dir;
}
