import { describe, expect, it } from 'vitest';
import { bestSoFar, curveArea, median } from '../archive/index.ts';
import { loadArithmetic } from '../domains/arithmetic/index.ts';
import { metaQuality } from '../llm/index.ts';
import { type WalkOptions, walk } from './sim-walk.ts';

const domain = { name: 'arithmetic', train: loadArithmetic('train'), val: loadArithmetic('val') };
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

async function experiment(options: Partial<WalkOptions>) {
  const runs = [];
  for (const seed of SEEDS) {
    const { scores, variants } = await walk({ seed, generations: 30, domain, ...options });
    const curve = bestSoFar(scores);
    runs.push({ best: curve.at(-1)!, area: curveArea(curve)!, scores, variants });
  }
  return {
    runs,
    medianBest: median(runs.map((r) => r.best))!,
    medianArea: median(runs.map((r) => r.area))!,
  };
}

// The generation loop in memory (test/sim-walk.ts) on the default sim landscape, 8 seeds x 30
// generations: what the landscape rewards, in seconds instead of the hour the real loop takes.
describe('the sim landscape', () => {
  it('rewards a MetaAgent that improves itself, and only while its changes are inherited', async () => {
    const full = await experiment({});
    const frozen = await experiment({ freezeMeta: true });
    const broken = await experiment({ inheritMeta: false });

    expect(full.medianBest).toBeGreaterThan(frozen.medianBest + 0.1);
    expect(full.medianArea).toBeGreaterThan(frozen.medianArea + 0.03);
    // The lineages that win carry MetaAgent changes: the best variants' prompts hold better meta phrases.
    const bestMeta = full.runs.map((r) => {
      const top = r.variants.filter((v) => v.valid).reduce((a, b) => (b.score > a.score ? b : a));
      return metaQuality(top.metaPrompt);
    });
    expect(median(bestMeta)!).toBeGreaterThan(metaQuality(full.runs[0]!.variants[0]!.metaPrompt));

    // A harness that drops agents/meta/ changes between generations loses the whole advantage.
    expect(broken.runs.map((r) => r.scores)).toEqual(frozen.runs.map((r) => r.scores));
    expect(broken.medianBest).toBeLessThan(full.medianBest - 0.1);
  }, 120_000);

  it('rewards keeping an archive: always building on the newest variant does worse', async () => {
    const full = await experiment({});
    const latest = await experiment({ parentSelection: 'latest' });
    expect(full.medianBest).toBeGreaterThan(latest.medianBest + 0.1);
    expect(full.medianArea).toBeGreaterThan(latest.medianArea);
  }, 120_000);
});
