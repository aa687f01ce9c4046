import { z } from 'zod';
import { createRng } from '../../system/rng.ts';
import { defineDomain, type Split, type Task } from '../define-domain.ts';
import { drawRules } from './rules.ts';

export interface TextInput {
  word: string;
  rules: string[];
}

const WORDS = [
  'lantern',
  'meadow',
  'quartz',
  'harbor',
  'velvet',
  'pioneer',
  'orchid',
  'tundra',
  'cobalt',
  'saffron',
  'glacier',
  'monsoon',
  'ember',
  'falcon',
  'juniper',
  'marble',
  'nectar',
  'oasis',
  'pebble',
  'ripple',
  'sapphire',
  'thistle',
  'umbrella',
  'voyage',
  'willow',
  'zephyr',
  'anchor',
  'basalt',
  'canyon',
  'dahlia',
  'eclipse',
  'fjord',
  'garnet',
  'hazel',
  'island',
  'jasmine',
  'kettle',
  'lagoon',
  'mosaic',
  'nimbus',
];

const SPLIT_SIZE: Record<Split, number> = { train: 30, val: 30, test: 30 };

/** Puzzles of one split, from a fixed seed per split: the same on every machine. */
export function loadText(split: Split): Task<TextInput, string>[] {
  const rng = createRng(`text:${split}:v1`);
  return Array.from({ length: SPLIT_SIZE[split] }, (_, i) => {
    const word = rng.pick(WORDS);
    const { rules, result } = drawRules(rng, word, rng.int(3, 5));
    return {
      id: `${split}-${String(i).padStart(3, '0')}`,
      input: { word, rules: rules.map((r) => r.text) },
      answer: result,
    };
  });
}

export default defineDomain<TextInput, string, string>({
  name: 'text',
  description:
    'Rule-based string transformations: apply each rule, in order, to a word; rewards careful reading.',
  splits: ['train', 'val', 'test'],
  load: loadText,
  answerSchema: z.string(),
  score: (prediction, task) => (prediction.trim() === task.answer ? 1 : 0),
  metric: 'exact (case-sensitive)',
  stagedSamples: 10,
  formatHint: 'The answer is the final string exactly, with its case, and nothing else.',
});
