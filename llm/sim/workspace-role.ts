import type { ChatRequest } from '../types.ts';
import { hash01, type KeyPart } from './rng.ts';
import { assistantCount, looksLikeToolError, textOf, toolResults, viewedLines } from './transcript.ts';

/** The gold answer of a workspace task (domains' `WorkspaceFiles`): path → reference content. */
export interface WorkspaceAnswer {
  files: Record<string, string>;
}

/** What the harness tells the sim about a workspace task beside its gold files (a domain's task workspace fits). */
export interface SimWorkspace {
  /** The starting files: relative paths, or path → content. */
  files?: readonly string[] | Readonly<Record<string, string>>;
  language?: string;
  /** The command that runs the visible tests; the sim runs it when the request shows it. */
  testCommand?: string;
}

export type SimToolCall = { name: 'bash' | 'editor'; input: Record<string, unknown> };
/** One sim reply: text, and the tool calls it makes (none ends the session). */
export type SimTurn = { content: string; toolCalls?: SimToolCall[] };

export interface WorkspaceSession {
  seed: KeyPart;
  domain: string;
  taskId: string;
  gold: WorkspaceAnswer;
  workspace?: SimWorkspace;
  /** Whether this task is solved: the reference files are written; otherwise a plausible wrong edit. */
  correct: boolean;
}

export function isWorkspaceAnswer(answer: unknown): answer is WorkspaceAnswer {
  if (typeof answer !== 'object' || answer === null || !('files' in answer)) return false;
  const files = (answer as { files: unknown }).files;
  return (
    typeof files === 'object' &&
    files !== null &&
    !Array.isArray(files) &&
    Object.values(files).every((content) => typeof content === 'string')
  );
}

/** Tool names the request offers: native tool specs, or the `### name` sections of the text protocol's tool list. */
export function offeredTools(req: ChatRequest): Set<string> {
  if (req.tools && req.tools.length > 0) return new Set(req.tools.map((t) => t.name));
  const system = textOf(req.messages, ['system']);
  const list = system.indexOf('## Tools');
  if (list === -1) return new Set();
  return new Set([...system.slice(list).matchAll(/^### (\S+)$/gm)].map((m) => m[1]!));
}

/**
 * The sim TaskAgent's next move on a workspace task, derived only from the request (step = assistant
 * messages so far): list the files (`ls -R`), view the main file, write the solution one file per call,
 * run the test command when the request shows it (else `ls -la`), then a final reply ending in
 * `<json>{"response": "done"}</json>`. The solution is the reference files when `correct`, else a
 * plausible wrong edit fixed by the seed: the viewed stub with a note added, or the reference with one
 * line left out.
 */
export function workspaceTurn(req: ChatRequest, session: WorkspaceSession): SimTurn {
  const offered = offeredTools(req);
  if (!offered.has('bash') || !offered.has('editor')) {
    return {
      content: `${SIM} This task is worked on in files, but the request offers no bash and editor tools (it offers: ${[...offered].join(', ') || 'none'}), so I changed nothing.`,
    };
  }
  const step = assistantCount(req.messages);
  const results = toolResults(req.messages);
  const paths = Object.keys(session.gold.files).sort();
  const shown = `${textOf(req.messages, ['system'])}\n${firstUser(req)}`;
  const main = mainFile(paths, session.workspace, shown);
  const steps: { call: SimToolCall; note: string }[] = [
    { call: { name: 'bash', input: { command: 'ls -R' } }, note: 'I start by listing the files.' },
    {
      call: { name: 'editor', input: { command: 'view', path: main } },
      note: `Next I read ${main}, the file to complete.`,
    },
  ];
  const testCommand = session.workspace?.testCommand;
  const command = testCommand && shown.includes(testCommand) ? testCommand : 'ls -la';
  const written: string[] = [];
  if (step >= 2) {
    const viewed = results[1];
    const stub = viewed === undefined || looksLikeToolError(viewed) ? undefined : viewedLines(viewed);
    for (const [path, content] of solution(session, paths, main, stub)) {
      written.push(path);
      steps.push({
        call: { name: 'bash', input: { command: writeCommand(path, content) } },
        note: `I write ${path}.`,
      });
    }
    steps.push({
      call: { name: 'bash', input: { command } },
      note: command === testCommand ? 'Now I run the tests.' : 'I check the folder once more.',
    });
  }
  const next = steps[step];
  if (next) return { content: next.note, toolCalls: [next.call] };
  const exit = /\[exit code (\d+)\]/.exec(results.at(-1) ?? '')?.[1];
  return {
    content: [
      `${SIM} I wrote ${written.join(', ')} and ran \`${command}\`${exit === undefined ? ' (exit code 0)' : ` (exit code ${exit})`}.`,
      '<json>{"response": "done"}</json>',
    ].join('\n'),
  };
}

const SIM = 'Simulated task agent (sim model, not a real LLM):';

function firstUser(req: ChatRequest): string {
  return req.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** The file to view and to break: the first gold file among the starting files, else one the request names. */
function mainFile(paths: readonly string[], workspace: SimWorkspace | undefined, shown: string): string {
  return (
    paths.find((p) => startingPaths(workspace).includes(p)) ??
    paths.find((p) => shown.includes(p)) ??
    paths[0] ??
    '.'
  );
}

function startingPaths(workspace: SimWorkspace | undefined): readonly string[] {
  const files = workspace?.files;
  if (files === undefined) return [];
  return Array.isArray(files) ? files : Object.keys(files);
}

/** The files written, in order: every reference file, or a wrong edit of the main file. */
function solution(
  session: WorkspaceSession,
  paths: readonly string[],
  main: string,
  stub: string[] | undefined,
): [string, string][] {
  const reference = paths.map((p): [string, string] => [p, session.gold.files[p] ?? '']);
  if (session.correct) return reference;
  const key = [session.seed, session.domain, session.taskId];
  const broken = withoutALine(session.gold.files[main] ?? '', hash01(...key, 'workspace-line'));
  if (stub !== undefined && (hash01(...key, 'workspace-wrong') < 0.5 || broken === undefined)) {
    return [[main, `${stub.join('\n')}\n${commentFor(main)} TODO: handle the remaining cases\n`]];
  }
  if (broken === undefined) return [[main, `${commentFor(main)} TODO: write the solution\n`]];
  return reference.map(([p, content]) => [p, p === main ? broken : content]);
}

/** The text with one of its non-blank lines (chosen by r in [0, 1)) left out; undefined if it has none. */
function withoutALine(text: string, r: number): string | undefined {
  const lines = text.split('\n');
  const candidates = lines.flatMap((line, i) => (line.trim() === '' ? [] : [i]));
  if (candidates.length === 0) return undefined;
  const drop = candidates[Math.floor(r * candidates.length)]!;
  return lines.filter((_, i) => i !== drop).join('\n');
}

function commentFor(path: string): string {
  return /\.(py|rb|sh|toml|ya?ml|r)$/i.test(path) ? '#' : '//';
}

/** A bash command that writes `content` to `path` exactly (no added newline), creating its folder. */
function writeCommand(path: string, content: string): string {
  const folder = path.includes('/') ? `mkdir -p ${quote(path.slice(0, path.lastIndexOf('/')))} && ` : '';
  return `${folder}printf '%s' ${quote(content)} > ${quote(path)}`;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
