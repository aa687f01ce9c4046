import { installHint, LANGUAGE_NAMES, LANGUAGE_NEEDS, type LanguageName } from '../domains/index.ts';
import { taskQueueName } from './protocol.ts';

/**
 * Which queue a task job goes on. A workspace task of a Polyglot language goes on that language's queue
 * (`tasks-v<version>-go`), which only workers that can grade the language listen to; every other task goes on
 * the plain task queue, which every worker listens to. A job no connected worker can take waits on its queue
 * (BullMQ keeps it) until one connects.
 */

export const isLanguageName = (name: unknown): name is LanguageName =>
  typeof name === 'string' && (LANGUAGE_NAMES as readonly string[]).includes(name);

/** The language whose toolchain grading a task needs: its workspace's, when that is a Polyglot language. */
export function taskLanguage(request: { workspace?: { language?: string } }): LanguageName | null {
  const language = request.workspace?.language;
  return isLanguageName(language) ? language : null;
}

/** The queue of a job of `language` (null: a plain task). */
export function taskQueueOf(version: string, language: LanguageName | null): string {
  return language === null ? taskQueueName(version) : `${taskQueueName(version)}-${language}`;
}

/** What grading a language needs, in a message's words: `go`, `python3 3.11 or later, pytest for python3`. */
export function needsOf(language: LanguageName): string {
  const needs = LANGUAGE_NEEDS.find((n) => n.language === language);
  if (needs === undefined) return 'Node (every worker has it)';
  const what = [
    ...needs.commands.map((c) =>
      c.minimum === undefined ? c.what : `${c.what} ${c.minimum.version.join('.')} or later`,
    ),
    ...needs.files.map((f) => f.what),
  ];
  return `${[...new Set(what)].join(', ')}: ${installHint(needs)}`;
}

/** The line a coordinator prints (and a run's page shows) when a language's tasks wait for a worker. */
export function waitingMessage(language: LanguageName, tasks: number): string {
  return (
    `${tasks} ${language} task${tasks === 1 ? '' : 's'} wait${tasks === 1 ? 's' : ''}: no connected worker ` +
    `can grade ${language} (it needs ${needsOf(language)}); they run when a worker that can connects`
  );
}

/** A change in what waits: a language's tasks began to wait for a worker, or one connected for them. */
export type WaitingChange =
  | { kind: 'waiting'; language: LanguageName; tasks: number; message: string }
  | { kind: 'served'; language: LanguageName; message: string };

/**
 * What to say, given the languages said to wait so far (`said`), the jobs awaited per language now, and the
 * languages some connected worker grades: each language once when its tasks begin to wait, and once when a
 * worker for them connects. Returns the changes and the languages said to wait afterwards. Pure.
 */
export function waitingChanges(
  said: ReadonlySet<LanguageName>,
  awaited: ReadonlyMap<LanguageName, number>,
  graded: ReadonlySet<LanguageName>,
): { changes: WaitingChange[]; said: Set<LanguageName> } {
  const changes: WaitingChange[] = [];
  const next = new Set<LanguageName>();
  for (const [language, tasks] of awaited) {
    if (tasks === 0 || graded.has(language)) continue;
    next.add(language);
    if (!said.has(language))
      changes.push({ kind: 'waiting', language, tasks, message: waitingMessage(language, tasks) });
  }
  for (const language of said) {
    if (next.has(language) || !graded.has(language)) continue;
    changes.push({
      kind: 'served',
      language,
      message: `a worker that can grade ${language} connected: its waiting tasks run now`,
    });
  }
  // A language whose tasks all ended (the run moved on) is forgotten without a message.
  return { changes, said: next };
}
