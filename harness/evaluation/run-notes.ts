import type { Archive } from '../../archive/index.ts';
import { CONTROL_EVENT, notesOf } from '../../archive/index.ts';

/**
 * notes.md of a MetaAgent's evals folder: the notes the person running the run gave it
 * (`hyperagents control RUN note TEXT`), oldest first; null when there are none (no file is written).
 */
export function runNotesFile(archive: Pick<Archive, 'eventsOf'>): string | null {
  const notes = notesOf(archive.eventsOf([CONTROL_EVENT]));
  if (notes.length === 0) return null;
  return [
    '# Notes from the person running this run',
    '',
    'Given while the run was going, oldest first. Take them into account in your edit.',
    '',
    ...notes.map((n) => `- ${n.ts.replace('T', ' ').slice(0, 19)} UTC: ${n.text}`),
    '',
  ].join('\n');
}
