import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createNormalizer,
  createRecordWriter,
  loadReplayBook,
  normalizeRequest,
  type RecordedResponse,
  type RecordingLine,
  requestKey,
  runPlaceholders,
} from './recorder.ts';
import type { ChatRequest } from './types.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'recorder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What the MetaAgent of a run in `out` sends: its worktree and evals folder live in the run folder. */
function metaRequest(runDir: string): ChatRequest {
  return {
    messages: [
      { role: 'system', content: `Improve the agents in ${runDir}/worktrees/variant-2.` },
      { role: 'user', content: `Results are in ${runDir}/evals/variant-2.` },
      {
        role: 'assistant',
        content: 'Viewing.',
        toolCalls: [
          { id: 'c1', name: 'editor', input: { command: 'view', path: `${runDir}/worktrees/variant-2` } },
        ],
      },
    ],
    maxTokens: 500,
  };
}

const project = '/home/me/hyperagents-ts';
const normalizerFor = (runDir: string, runId = path.basename(runDir)) =>
  createNormalizer(runPlaceholders({ runDir, runId, projectRoot: project }));

const response = (content: string): RecordedResponse => ({
  message: { content },
  stopReason: 'end',
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  costUsd: 0.001,
});

describe('normalized requests', () => {
  it('give the same key for runs in different --out folders and under different run ids', () => {
    const a = '/tmp/out-a/20250101-120000-001';
    const b = '/var/elsewhere/night-2';
    const keyA = requestKey(normalizeRequest('meta', 'sim', metaRequest(a), normalizerFor(a)));
    const keyB = requestKey(normalizeRequest('meta', 'sim', metaRequest(b), normalizerFor(b)));
    expect(keyA).toBe(keyB);
    expect(keyA).toMatch(/^[0-9a-f]{64}$/);
  });

  it('replace the run folder in every string, tool call inputs included', () => {
    const runDir = '/tmp/out-a/run-1';
    const normalized = normalizeRequest('meta', 'sim', metaRequest(runDir), normalizerFor(runDir));
    expect(JSON.stringify(normalized)).not.toContain('/tmp/out-a');
    expect(normalized.messages[0]).toEqual({
      role: 'system',
      content: 'Improve the agents in <RUN_DIR>/worktrees/variant-2.',
    });
    expect(normalized.messages[2]).toMatchObject({
      toolCalls: [{ input: { path: '<RUN_DIR>/worktrees/variant-2' } }],
    });
  });

  it('key on role, model and every field that decides the answer, not on field order', () => {
    const n = normalizerFor('/r/x');
    const base: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], temperature: 0.5, maxTokens: 9 };
    const key = (role: 'meta' | 'task', model: string, req: ChatRequest) =>
      requestKey(normalizeRequest(role, model, req, n));
    const reordered: ChatRequest = {
      maxTokens: 9,
      temperature: 0.5,
      messages: [{ content: 'hi', role: 'user' }],
    };
    expect(key('task', 'sim', reordered)).toBe(key('task', 'sim', base));
    const others = [
      key('meta', 'sim', base),
      key('task', 'openai/gpt-4o', base),
      key('task', 'sim', { ...base, temperature: 0.6 }),
      key('task', 'sim', { ...base, maxTokens: 10 }),
      key('task', 'sim', { ...base, reasoning: 'low' }),
      key('task', 'sim', { ...base, tools: [{ name: 'bash', description: 'd', inputSchema: {} }] }),
      key('task', 'sim', { ...base, messages: [{ role: 'user', content: 'hi!' }] }),
    ];
    expect(new Set([key('task', 'sim', base), ...others]).size).toBe(others.length + 1);
  });

  it('replace the run id only where it stands alone, and the project folder apart from a run inside it', () => {
    const runDir = `${project}/runs/r7`;
    const n = normalizerFor(runDir, 'r7');
    expect(n.normalize(`${runDir}/logs and ${project}/agents; run r7 (not r77 or xr7)`)).toBe(
      '<RUN_DIR>/logs and <PROJECT_DIR>/agents; run <RUN_ID> (not r77 or xr7)',
    );
  });

  it('also replace the real path of a run folder reached through a symlink', () => {
    const real = path.join(tmp, 'real-out', 'run-9');
    mkdirSync(real, { recursive: true });
    const link = path.join(tmp, 'linked-out');
    symlinkSync(path.join(tmp, 'real-out'), link);
    const n = normalizerFor(path.join(link, 'run-9'));
    expect(n.normalize(`${real}/worktrees and ${link}/run-9/evals`)).toBe(
      '<RUN_DIR>/worktrees and <RUN_DIR>/evals',
    );
  });

  it('restore placeholders in a reply to this run’s own paths', () => {
    const n = normalizerFor('/new/out/run-b');
    const reply = {
      content: 'Editing <RUN_DIR>/worktrees/variant-1/agents/task/prompt.md',
      input: ['<RUN_ID>'],
    };
    expect(n.restore(reply)).toEqual({
      content: 'Editing /new/out/run-b/worktrees/variant-1/agents/task/prompt.md',
      input: ['run-b'],
    });
  });
});

describe('recording files', () => {
  const line = (key: string, content: string): RecordingLine => ({
    key,
    request: { role: 'task', model: 'sim', messages: [{ role: 'user', content: key }] },
    response: response(content),
  });

  it('are JSON Lines appended one call at a time, replayed in order per key, then the last again', () => {
    const file = path.join(tmp, 'nested', 'rec.jsonl');
    const writer = createRecordWriter(file);
    expect(readFileSync(file, 'utf8')).toBe('');
    for (const [key, content] of [
      ['a', 'a1'],
      ['b', 'b1'],
      ['a', 'a2'],
    ] as const)
      writer.append(line(key, content));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as RecordingLine).key)).toEqual(['a', 'b', 'a']);
    const book = loadReplayBook(file);
    expect(book.size).toBe(3);
    const next = (key: string) => book.next(key)?.message.content;
    expect([next('a'), next('b'), next('a'), next('a'), next('b')]).toEqual(['a1', 'b1', 'a2', 'a2', 'b1']);
    expect(book.next('never recorded')).toBeUndefined();
  });

  it('survive a crash in the middle of a line: the cut-off last line is skipped', () => {
    const file = path.join(tmp, 'crashed.jsonl');
    writeFileSync(file, `${JSON.stringify(line('a', 'a1'))}\n`);
    appendFileSync(file, JSON.stringify(line('b', 'b1')).slice(0, 40));
    const book = loadReplayBook(file);
    expect(book.size).toBe(1);
    expect(book.next('a')?.message.content).toBe('a1');
  });

  it('refuse a file that is not a recording, naming the file and the line', () => {
    const notJson = path.join(tmp, 'not-json.jsonl');
    writeFileSync(notJson, `${JSON.stringify(line('a', 'a1'))}\nhello\n${JSON.stringify(line('b', 'b1'))}\n`);
    expect(() => loadReplayBook(notJson)).toThrow(`${notJson} line 2 is not JSON`);
    const wrongShape = path.join(tmp, 'wrong.jsonl');
    writeFileSync(wrongShape, `${JSON.stringify({ key: 'a', request: {}, response: { message: 'x' } })}\n`);
    expect(() => loadReplayBook(wrongShape)).toThrow(
      /wrong\.jsonl line 1 is not a recorded call[\s\S]*request\.role/,
    );
    const empty = path.join(tmp, 'empty.jsonl');
    writeFileSync(empty, '\n');
    expect(() => loadReplayBook(empty)).toThrow(/holds no recorded calls/);
    expect(() => loadReplayBook(path.join(tmp, 'missing.jsonl'))).toThrow(
      /cannot read the recording .*missing\.jsonl/,
    );
  });
});
