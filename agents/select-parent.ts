/**
 * Chooses the next parent when the run has --edit-select-parent. Reads the archive summary as JSON on stdin
 * (`{ generation, candidates: [{ id, parent, score, children }] }`) and prints the chosen variant's id as the
 * last line of stdout. The MetaAgent may rewrite this file; a failure falls back to the run's strategy.
 */
import { readFileSync } from 'node:fs';

interface Candidate {
  id: number;
  parent: number | null;
  score: number;
  children: number;
}

const summary = JSON.parse(readFileSync(0, 'utf8')) as { generation: number; candidates: Candidate[] };
// Favour high scores, and variants that have not been explored much yet.
const weight = (c: Candidate): number => c.score * Math.exp(-((c.children / 8) ** 3));
const best = summary.candidates.reduce((a, b) => (weight(b) > weight(a) ? b : a));
process.stdout.write(`${best.id}\n`);
