import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, openArchive, openArchiveReader } from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { HIGHLIGHT_LANGUAGES, readAsset } from './assets.ts';
import { runPage, variantPage } from './data.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'web-data-'));
const CALLS = [
  { role: 'meta', model: 'big', costUsd: 0.5, input: 4000, output: 500 },
  { role: 'task', model: 'small', costUsd: 0.125, input: 1000, output: 50 },
  { role: 'task', model: 'small', costUsd: 0.125, input: 1000, output: 50 },
];

const pageOf = (id: string) => {
  const reader = openArchiveReader(archiveFile(path.join(runs, id)));
  try {
    return runPage(reader)!;
  } finally {
    reader.close();
  }
};

beforeAll(() => {
  writeSyntheticRun(runs, { id: 'three', variants: 6, seed: 2, calls: CALLS });
  writeSyntheticRun(runs, { id: 'one', variants: 6, seed: 2, calls: CALLS.slice(0, 1) });
  writeSyntheticRun(runs, { id: 'noisy', variants: 6, seed: 2, calls: CALLS });
  const archive = openArchive(archiveFile(path.join(runs, 'noisy')));
  archive.putNoiseFloor([0.2, 0.3, 0.4]);
  const best = archive
    .listVariants()
    .filter((v) => v.selectionScore !== null && v.id !== 0)
    .sort((a, b) => (b.selectionScore ?? 0) - (a.selectionScore ?? 0))[0]!;
  archive.putConfirmedScore({
    variantId: best.id,
    rawScore: best.selectionScore!,
    confirmedScore: 0.25,
    firstAttempt: 1,
    attempts: 2,
    scores: [0.2, 0.3],
  });
  archive.close();
});

afterAll(() => rmSync(runs, { recursive: true, force: true }));

describe("a run page's costs", () => {
  it('sums each generation by role and by model on the server: one point a generation, whatever the calls', () => {
    const page = pageOf('three');
    expect(page.spend.map((p) => p.generation)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const p of page.spend) {
      expect(p.calls).toBe(3);
      expect(p.byRole).toEqual({ meta: 0.5, task: 0.25 });
      expect(p.byModel).toEqual({ big: 0.5, small: 0.25 });
    }
    expect(page.spend.at(-1)!.cumulativeUsd).toBe(4.5);
    expect(page.run.costUsd).toBe(4.5);
    // Three times the calls, the same size of spend data.
    const fewer = pageOf('one');
    expect(fewer.spend).toHaveLength(page.spend.length);
    expect(JSON.stringify(page.spend).length).toBeLessThan(2 * JSON.stringify(fewer.spend).length);
  });

  it('gives each variant its calls and tokens', () => {
    const page = pageOf('three');
    for (const v of page.variants)
      expect([v.llmCalls, v.inputTokens, v.outputTokens]).toEqual([3, 6000, 600]);
  });
});

describe('trusted scores on the pages', () => {
  it("says the run's best is confirmed, with its raw score, and whether its gain over variant 0 is within noise", async () => {
    const page = pageOf('noisy');
    const zero = page.variants.find((v) => v.id === 0)!.score!;
    const best = page.run.best!;
    expect(best).toMatchObject({ score: 0.25, confirmed: true });
    const gain = best.rawScore! - zero;
    expect(page.bestStanding).toMatchObject({
      reportedBest: true,
      confirmed: { score: 0.25, raw: best.rawScore, attempts: [0.2, 0.3] },
      gainOverInitial: gain,
      withinNoise: gain > 0 && gain < 0.1,
    });
    expect(page.withinNoise).toEqual(
      page.variants
        .filter((v) => v.id > 0 && v.score !== null && v.score - zero > 0 && v.score - zero < 0.1)
        .map((v) => v.id),
    );
    expect(pageOf('three').withinNoise).toEqual([]);
    const reader = openArchiveReader(archiveFile(path.join(runs, 'noisy')));
    try {
      const variant = await variantPage(reader, 'noisy', path.join(runs, 'noisy'), best.id);
      expect(variant?.standing).toEqual(page.bestStanding);
      const initial = await variantPage(reader, 'noisy', path.join(runs, 'noisy'), 0);
      expect(initial?.standing).toMatchObject({
        gainOverInitial: null,
        withinNoise: null,
        reportedBest: false,
      });
    } finally {
      reader.close();
    }
  });

  it('has no standing to show on a run without the tables', () => {
    expect(pageOf('three').bestStanding).toMatchObject({
      confirmed: null,
      noiseFloor: null,
      withinNoise: null,
    });
  });
});

describe("a run's alert destinations on its page", () => {
  it('shows the origin of a --notify address, never its path, and no --notify-cmd command', () => {
    writeSyntheticRun(runs, { id: 'alerting', variants: 2, seed: 2, calls: CALLS });
    const db = new Database(archiveFile(path.join(runs, 'alerting')));
    const config = JSON.parse((db.prepare('SELECT config FROM runs').get() as { config: string }).config);
    const stored = {
      ...config,
      notifyUrl: 'https://hooks.example.com/T0/B1/s3cret',
      notifyCmd: 'mail -s x me',
    };
    db.prepare('UPDATE runs SET config = ?').run(JSON.stringify(stored));
    db.close();
    const shown = JSON.stringify(pageOf('alerting'));
    expect(shown).not.toContain('s3cret');
    expect(shown).not.toContain('mail -s');
    expect(pageOf('alerting').run.config).toMatchObject({
      notifyUrl: 'https://hooks.example.com/…',
      notifyCmd: '(left out: it may hold a secret)',
    });
  });
});

describe('the highlighting asset', () => {
  it('is highlight.js with only the languages the diffs need, marking TypeScript keywords', () => {
    const window: {
      hljs?: { listLanguages(): string[]; highlight(code: string, o: object): { value: string } };
    } = {};
    runInNewContext(readAsset('highlight.min.js'), { window, console });
    expect(window.hljs!.listLanguages().sort()).toEqual([...HIGHLIGHT_LANGUAGES].sort());
    expect(window.hljs!.highlight('const x: number = 1;', { language: 'ts' }).value).toContain(
      '<span class="hljs-keyword">const</span>',
    );
  });
});
