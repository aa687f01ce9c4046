import { describe, expect, it } from 'vitest';
import type { LanguageName } from '../domains/index.ts';
import { taskLanguage, taskQueueOf, waitingChanges, waitingMessage } from './routing.ts';

describe('taskLanguage and taskQueueOf', () => {
  it.each([
    [{}, null],
    [{ workspace: {} }, null],
    [{ workspace: { language: 'go' } }, 'go'],
    [{ workspace: { language: 'cobol' } }, null],
  ])('%j goes on the queue of language %s', (request, language) => {
    expect(taskLanguage(request)).toBe(language);
  });

  it('names one queue per language beside the plain task queue', () => {
    expect(taskQueueOf('1.0+abc', null)).toBe('tasks-v1.0_abc');
    expect(taskQueueOf('1.0+abc', 'go')).toBe('tasks-v1.0_abc-go');
    expect(taskQueueOf('1.0+abc', 'python')).toBe('tasks-v1.0_abc-python');
  });
});

describe('waitingMessage', () => {
  it('names the toolchain the language needs and how to install it', () => {
    expect(waitingMessage('go', 3)).toBe(
      '3 go tasks wait: no connected worker can grade go (it needs go: apt-get install golang-go, or npm run ' +
        'setup -- --polyglot); they run when a worker that can connects',
    );
    expect(waitingMessage('python', 1)).toContain(
      '1 python task waits: no connected worker can grade python (it needs python3 3.11 or later, pytest for python3:',
    );
  });
});

const set = (...names: LanguageName[]) => new Set<LanguageName>(names);
const map = (entries: [LanguageName, number][]) => new Map<LanguageName, number>(entries);

describe('waitingChanges', () => {
  it.each([
    ['nothing awaited', set(), map([]), set(), [], []],
    ['tasks a worker grades', set(), map([['go', 3]]), set('go'), [], []],
    ['tasks no worker grades: said once', set(), map([['go', 3]]), set('python'), ['waiting go 3'], ['go']],
    ['still waiting: not said again', set('go'), map([['go', 5]]), set(), [], ['go']],
    ['a worker connected for them', set('go'), map([['go', 5]]), set('go'), ['served go'], []],
    ['their tasks ended without a worker: forgotten', set('go'), map([]), set(), [], []],
    [
      'two languages',
      set(),
      map([
        ['go', 1],
        ['rust', 2],
      ]),
      set(),
      ['waiting go 1', 'waiting rust 2'],
      ['go', 'rust'],
    ],
  ] as const)('%s', (_, said, awaited, graded, changes, after) => {
    const next = waitingChanges(said, awaited, graded);
    expect(
      next.changes.map((c) =>
        c.kind === 'waiting' ? `waiting ${c.language} ${c.tasks}` : `served ${c.language}`,
      ),
    ).toEqual(changes);
    expect([...next.said]).toEqual(after);
  });
});
