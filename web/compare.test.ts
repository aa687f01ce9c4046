import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, openArchiveReader, runFigures } from '../archive/index.ts';
import { type SyntheticRunOptions, writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { compareRuns, parseCompareChoice } from './compare.ts';
import { type RunPage, runPage } from './data.ts';
import { type RunningServer, startServer } from './server.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'compare-'));
const FULL = ['full-1', 'full-2', 'full-3'];
const LATEST = ['latest-1', 'latest-2', 'latest-3'];
const pages = new Map<string, RunPage & { figures: ReturnType<typeof runFigures> }>();
let server: RunningServer;

function write(options: SyntheticRunOptions): void {
  const dir = writeSyntheticRun(runs, options);
  const reader = openArchiveReader(archiveFile(dir));
  try {
    pages.set(options.id, { ...runPage(reader)!, figures: runFigures(reader) });
  } finally {
    reader.close();
  }
}
const of = (ids: readonly string[]) => ids.map((id) => pages.get(id)!);

beforeAll(async () => {
  for (const [i, id] of FULL.entries()) write({ id, variants: 20, seed: 100 + i, lift: 0.02 });
  const latest = { lift: -0.005, config: { parentSelection: 'latest' } };
  for (const [i, id] of LATEST.entries()) write({ id, variants: 20, seed: 200 + i, ...latest });
  write({ id: 'latest-short', variants: 8, seed: 210, ...latest });
  write({ id: 'full-stopped', variants: 20, seed: 110, lift: 0.02, status: 'stopped' });
  server = await startServer({ runsDir: runs });
});

afterAll(async () => {
  await server.close();
  rmSync(runs, { recursive: true, force: true });
});

describe('compareRuns', () => {
  it('groups by configuration the same way whatever order the runs come in', () => {
    const forward = compareRuns(of([...FULL, ...LATEST]));
    const backward = compareRuns(of([...LATEST, ...FULL].reverse()));
    for (const c of [forward, backward]) {
      expect(c.choice.byConfiguration).toBe(true);
      expect(c.groups.map((g) => [g.name, g.label, [...g.runs].sort()])).toEqual([
        ['A', 'sim · arithmetic · latest', LATEST],
        ['B', 'sim · arithmetic · score_child_prop', FULL],
      ]);
    }
    expect(backward.test).toEqual(forward.test);
  });

  it('tests the direction asked: B better, A better, or either way', () => {
    const p = (direction: 'a-better' | 'b-better' | 'two-sided') =>
      compareRuns(of([...FULL, ...LATEST]), { direction }).test!.p;
    // Every full run ends above every latest one: 1/20 one way, 1 the other, 2/20 either way.
    expect(p('b-better')).toBeCloseTo(0.05, 12);
    expect(p('a-better')).toBe(1);
    expect(p('two-sided')).toBeCloseTo(0.1, 12);
    const chosen = compareRuns(of([...FULL, ...LATEST]), { a: FULL, b: LATEST, direction: 'a-better' });
    expect(chosen.test!.p).toBeCloseTo(0.05, 12);
    expect(chosen.smallestP).toBeCloseTo(0.05, 12);
    expect(chosen.summary!.configs.map((c) => c.name)).toEqual([
      'A: sim · arithmetic · score_child_prop',
      'B: sim · arithmetic · latest',
    ]);
  });

  it('flags stopped and short runs and leaves them out unless asked to include them', () => {
    const all = of([...FULL, ...LATEST, 'latest-short', 'full-stopped']);
    const left = compareRuns(all);
    const run = (c: typeof left, id: string) => c.runs.find((r) => r.id === id)!;
    expect(run(left, 'latest-short')).toMatchObject({
      group: 'A',
      generations: 8,
      included: false,
      flag: 'short: 8 of the 20 generations of the longest run in group A',
    });
    expect(run(left, 'full-stopped')).toMatchObject({ group: 'B', included: false });
    expect(run(left, 'full-stopped').flag).toMatch(/^stopped/);
    expect(run(left, 'full-1')).toMatchObject({ included: true, flag: null });
    expect(left.groups.map((g) => g.runs.length)).toEqual([3, 3]);
    expect(left.groups[0].median).toHaveLength(20);

    const kept = compareRuns(all, { includeShort: true });
    expect(kept.groups.map((g) => g.runs.length)).toEqual([4, 4]);
    expect(run(kept, 'latest-short').included).toBe(true);
    expect(kept.smallestP).toBeCloseTo(2 / 70, 12);
  });

  it('leaves a run in no group out of the figures, and has no test with an empty group', () => {
    const c = compareRuns(of([...FULL, ...LATEST]), { a: FULL, b: [] });
    expect(c.runs.find((r) => r.id === 'latest-1')).toMatchObject({ group: null, included: false });
    expect(c.test).toBeNull();
    expect(c.smallestP).toBe(1);
    expect(c.summary).toBeNull();
  });
});

describe('parseCompareChoice', () => {
  const ids = ['r1', 'r2', 'r3'];
  const parse = (query: Record<string, string>) => parseCompareChoice((k) => query[k], ids);
  it('reads groups, the toggle and the direction', () => {
    expect(parse({ a: 'r1', b: 'r2,r3', short: 'include', test: 'b-better' })).toEqual({
      ok: true,
      choice: { a: ['r1'], b: ['r2', 'r3'], includeShort: true, direction: 'b-better' },
    });
    expect(parse({})).toEqual({ ok: true, choice: { includeShort: false, direction: 'two-sided' } });
  });
  it.each([
    [{ a: 'r1,r9' }, /^run r9 is in group A but not among the runs compared/],
    [{ a: 'r1', b: 'r1' }, /^run r1 is in both groups/],
    [{ test: 'a>b' }, /^test must be one of a-better, b-better, two-sided/],
    [{ short: 'yes' }, /^short must be include or exclude/],
  ])('refuses %j with a line saying what to do', (query, message) => {
    const parsed = parse(query);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});

describe('GET /api/compare', () => {
  it('answers the chosen groups and direction, and a bad choice with 400 and its reason', async () => {
    const ids = [...FULL, ...LATEST].join(',');
    const ok = await fetch(
      `${server.url}/api/compare?runs=${ids}&a=${FULL.join(',')}&b=${LATEST.join(',')}&test=a-better`,
    );
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { comparison: { test: { p: number } } };
    expect(body.comparison.test.p).toBeCloseTo(0.05, 12);
    const bad = await fetch(`${server.url}/api/compare?runs=${ids}&test=sideways`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^test must be one of/);
  });
});
