import { describe, expect, it } from 'vitest';
import arithmetic from '../domains/arithmetic/index.ts';
import type { GradeContext } from '../domains/index.ts';
import { type Graded, gradeOutput } from '../harness/evaluation/index.ts';
import { defaultTaskSettings } from '../harness/run/index.ts';
import {
  decodeEditResult,
  decodeTaskResult,
  editJobId,
  editQueueName,
  encodeEditResult,
  encodeTaskResult,
  type JobReply,
  type RanEdit,
  TaskJobSchema,
  taskJobId,
  taskQueueName,
} from './protocol.ts';
import { receivedWorkspace, sentWorkspace, startingFiles } from './workspace-tasks.ts';

/** What BullMQ does to a job's data and result: JSON text in Redis, parsed again by whoever reads it. */
const throughRedis = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const overTheQueue = (reply: JobReply): JobReply | null =>
  decodeTaskResult(throughRedis(encodeTaskResult(reply)));

const job = {
  runKey: 'a'.repeat(32),
  commit: 'b'.repeat(40),
  request: { id: 'train-1', domain: 'arithmetic', input: { question: '1 + 1' } },
};

describe('taskJobId', () => {
  it('is the same for the same task, whatever else the job carries', () => {
    expect(taskJobId({ ...job })).toBe(taskJobId(job));
    expect(taskJobId(job)).toMatch(/^task-[0-9a-f]{40}$/);
  });

  it.each([
    ['another run', { ...job, runKey: 'c'.repeat(32) }],
    ['another commit', { ...job, commit: 'd'.repeat(40) }],
    ['another task', { ...job, request: { ...job.request, id: 'train-2' } }],
    ['another domain', { ...job, request: { ...job.request, domain: 'code' } }],
    ['another input', { ...job, request: { ...job.request, input: { question: '1 + 2' } } }],
  ])('differs for %s', (_, other) => {
    expect(taskJobId(other)).not.toBe(taskJobId(job));
  });
});

describe('taskQueueName', () => {
  it('holds the version and nothing BullMQ refuses', () => {
    expect(taskQueueName('0.1.0')).toBe('tasks-v0.1.0');
    expect(taskQueueName('1.0.0+build:7')).not.toContain(':');
  });
});

const edit = {
  runKey: 'a'.repeat(32),
  variantId: 3,
  parentCommit: 'b'.repeat(40),
  metaCommit: 'b'.repeat(40),
};

describe('editJobId', () => {
  it('is the same for the same generation of the same run and parent', () => {
    expect(editJobId({ ...edit })).toBe(editJobId(edit));
    expect(editJobId(edit)).toMatch(/^edit-[0-9a-f]{40}$/);
  });

  it.each([
    ['another run', { ...edit, runKey: 'c'.repeat(32) }],
    ['another generation', { ...edit, variantId: 4 }],
    ['another parent', { ...edit, parentCommit: 'd'.repeat(40) }],
    ['another MetaAgent (--freeze-meta)', { ...edit, metaCommit: 'e'.repeat(40) }],
  ])('differs for %s', (_, other) => {
    expect(editJobId(other)).not.toBe(editJobId(edit));
  });

  it('lives in a queue of its own per version', () => {
    expect(editQueueName('0.1.0')).toBe('edits-v0.1.0');
    expect(editQueueName('0.1.0')).not.toBe(taskQueueName('0.1.0'));
  });
});

const reply = (output: string, graded?: Graded): JobReply => ({
  kind: 'reply',
  output,
  error: null,
  latencyMs: 412,
  ...(graded === undefined ? {} : { graded }),
});
const graded = (prediction: unknown, change: Partial<Graded> = {}): Graded => ({
  outcome: 'wrong',
  prediction,
  score: 0,
  error: null,
  detail: null,
  ...change,
});

describe('a task job result over the queue', () => {
  it.each<[string, JobReply]>([
    [
      'a parse failure (no prediction), its output kept',
      reply(
        'The answer is probably 24.',
        graded(undefined, { outcome: 'parse_failure', error: 'no JSON object with "response"' }),
      ),
    ],
    [
      'an empty output',
      reply('', graded(undefined, { outcome: 'parse_failure', error: 'no JSON object with "response"' })),
    ],
    [
      'an answer the schema refused, kept as the prediction',
      reply('<json>{"response": "unknown"}</json>', graded('unknown', { outcome: 'parse_failure' })),
    ],
    ['a null prediction', reply('<json>{"response": null}</json>', graded(null))],
    ['a false prediction', reply('<json>{"response": false}</json>', graded(false))],
    ['a zero prediction', reply('<json>{"response": 0}</json>', graded(0))],
    ["an empty string's prediction", reply('<json>{"response": ""}</json>', graded(''))],
    [
      'a nested prediction',
      reply('…', graded({ b: [1, null, { c: '' }], a: { '2': true, '10': [] }, d: -1.5e-300 })),
    ],
    [
      'text JSON escapes (NUL, a lone surrogate, emoji, line breaks)',
      reply('a\u0000b\ud800 🙂\r\n', graded('\u0000\udfff🙂\n', { outcome: 'correct', score: 1 })),
    ],
    [
      "a grader's detail",
      reply('<json>{"response": "f"}</json>', graded('f', { score: 0.75, detail: '3/4 tests passed' })),
    ],
    [
      'a grader that failed',
      reply('<json>{"response": 5}</json>', graded(5, { outcome: 'error', error: 'grader failed: boom' })),
    ],
    [
      'a model error (not graded)',
      { kind: 'reply', output: '', error: 'model call failed: 500', latencyMs: 3 },
    ],
    ['a reply the coordinator grades (a dataset domain)', reply('<json>{"response": 7}</json>')],
    ['an infrastructure failure', { kind: 'infra', reason: 'TaskAgent exited (SIGKILL)', latencyMs: 9 }],
  ])('arrives as it left: %s', (_what, sent) => {
    expect(overTheQueue(sent)).toStrictEqual(sent);
  });

  /** Grading is in-process for arithmetic; a command would be a bug. */
  const ctx: GradeContext = { run: () => Promise.reject(new Error('no commands expected')) };
  const task = { id: 'train-030', input: { question: 'How many?' }, answer: 24 };

  it.each([
    ['no JSON at all', 'The answer is probably 24.'],
    ['nothing', ''],
    ['a null response', '<json>{"response": null}</json>'],
    ['a response of the wrong type', '<json>{"response": {"n": [24]}}</json>'],
    ['a wrong answer', '<json>{"response": 23}</json>'],
    ['the right answer', '<json>{"response": 24}</json>'],
  ])("arrives as the worker's grader gave it: %s", async (_what, output) => {
    const sent = reply(output, await gradeOutput(arithmetic, task, output, ctx));
    expect(overTheQueue(sent)).toStrictEqual(sent);
  });

  it.each([
    ['-0', -0],
    ['a hole in an array', [1, undefined, 3]],
    ['an undefined field', { a: 1, b: undefined }],
  ])('carries a prediction JSON would change (%s) as the archive stores it', (_what, prediction) => {
    const back = overTheQueue(reply('…', graded(prediction)));
    expect(back?.kind === 'reply' && JSON.stringify(back.graded?.prediction)).toBe(
      JSON.stringify(prediction),
    );
  });

  it.each<[string, unknown]>([
    ['nothing', undefined],
    ['a reply without its grade field', { kind: 'reply', output: 'x', error: null, latencyMs: 1 }],
    [
      'a grade whose prediction is not JSON text',
      {
        kind: 'reply',
        output: 'x',
        error: null,
        latencyMs: 1,
        graded: { outcome: 'wrong', prediction: '{', score: 0, error: null, detail: null },
      },
    ],
    ['another kind', { kind: 'timeout', latencyMs: 1 }],
  ])('reads %s as no result', (_what, value) => {
    expect(decodeTaskResult(value)).toBeNull();
  });
});

describe('a task job over the queue', () => {
  const data = {
    version: '0.1.0+abc',
    runKey: 'a'.repeat(32),
    runId: 'run',
    variantId: 0,
    commit: 'b'.repeat(40),
    token: 't'.repeat(32),
    tasksPerWorker: 2,
    settings: { ...defaultTaskSettings(), maxToolCalls: 3, taskTimeoutSec: 1 },
    gradeHere: true,
  };

  it('carries the task settings whole, and refuses a job that lacks one of them', () => {
    const parsed = TaskJobSchema.parse(
      throughRedis({ ...data, request: { id: 'a', domain: 'd', input: 1 } }),
    );
    expect(parsed.settings).toEqual(data.settings);
    const { maxToolCalls: _, ...partial } = data.settings;
    const without = throughRedis({ ...data, settings: partial, request: { id: 'a', domain: 'd', input: 1 } });
    expect(TaskJobSchema.safeParse(without).success).toBe(false);
  });

  it.each([
    ['a task with a format hint', { id: 'a', domain: 'd', input: { q: [1, null] }, formatHint: 'a number' }],
    ['a task whose input is undefined', { id: 'a', domain: 'd', input: undefined }],
    ['a task whose input is null', { id: 'a', domain: 'd', input: null }],
  ])('is read by the worker as the coordinator sent it: %s', (_what, request) => {
    const parsed = TaskJobSchema.safeParse(throughRedis({ ...data, request }));
    expect(parsed.success && parsed.data.request).toEqual(request);
  });
});

describe('a workspace task over the queue', () => {
  const workspaceReply: Extract<JobReply, { kind: 'reply' }> = {
    kind: 'reply',
    output: '<json>{"response": "done"}</json>',
    error: null,
    latencyMs: 412,
    graded: {
      ...graded('--- a/bowling.py\n+++ b/bowling.py\n@@ -1 +1 @@\n-pass\n+return 0\n'),
      detail: '3/4 tests passed',
      log: 'FAILED test_bowling.py::test_strike\n',
    },
    workspace: { kind: 'files', files: { 'bowling.py': 'return 0\n' }, skipped: ['big.bin'] },
  };

  it.each<[string, JobReply]>([
    ["the grader's test output and the final folder", workspaceReply],
    [
      'a folder refused over its limits',
      { ...workspaceReply, workspace: { kind: 'refused', reason: 'over 1 KiB' } },
    ],
  ])('comes back as the worker made it: %s', (_what, sent) => {
    expect(overTheQueue(sent)).toStrictEqual(sent);
  });

  it("carries the starting files in the request and the exercise's answer apart, and a regrade is a job of its own", () => {
    const job = {
      version: '0.1.0+abc',
      runKey: 'a'.repeat(32),
      runId: 'run',
      variantId: 0,
      commit: 'b'.repeat(40),
      token: 't'.repeat(32),
      tasksPerWorker: 1,
      settings: defaultTaskSettings(),
      gradeHere: false,
      request: {
        id: 'python/bowling',
        domain: 'polyglot',
        input: { exercise: 'bowling' },
        workspace: { files: { 'bowling.py': 'pass\n' }, language: 'python' },
        limits: { maxToolCalls: 40 },
      },
      workspaceGrader: {
        kind: 'exercism' as const,
        domain: 'polyglot',
        testsVisible: false,
        answer: {
          language: 'python' as const,
          layout: {
            name: 'bowling',
            solution: ['bowling.py'],
            test: ['bowling_test.py'],
            example: ['.meta/example.py'],
          },
          tests: { 'bowling_test.py': 'import bowling\n' },
          reference: { 'bowling.py': 'def score(): return 0\n' },
          support: {},
        },
      },
    };
    const parsed = TaskJobSchema.parse(throughRedis(job));
    expect(parsed.request).toEqual(job.request);
    expect(parsed.workspaceGrader).toEqual(job.workspaceGrader);
    const regrade = {
      ...parsed,
      regrade: { kind: 'changes' as const, files: { 'bowling.py': 'x' }, removed: [], skipped: [] },
    };
    expect(taskJobId(TaskJobSchema.parse(throughRedis(regrade)))).not.toBe(taskJobId(parsed));
  });
});

describe("a workspace's files through Redis", () => {
  // A C++ exercise: Catch's single header is most of its starting files, and the answer changes two files.
  const start = {
    'CMakeLists.txt': 'project(yacht)\n',
    'test/catch.hpp': `// Catch v2\n${'x'.repeat(650 * 1024)}\n`,
    'yacht.cpp': '// stub\n',
    'yacht.h': '#pragma once\n',
  };
  const collected = {
    kind: 'files' as const,
    files: {
      'CMakeLists.txt': 'project(yacht)\n',
      'notes.txt': 'scratch\n',
      'test/catch.hpp': start['test/catch.hpp'],
      'yacht.cpp': 'int score() { return 0; }\n',
    },
    skipped: ['a.out'],
  };
  const reply: JobReply = { kind: 'reply', output: 'done', error: null, latencyMs: 9, workspace: collected };

  it('carries back only what differs from the starting files, and comes out whole on the other side', () => {
    const wire = JSON.stringify(encodeTaskResult(reply, start));
    expect(wire.length).toBeLessThan(1024);
    expect(JSON.parse(wire).workspace).toEqual({
      kind: 'changes',
      files: { 'notes.txt': 'scratch\n', 'yacht.cpp': 'int score() { return 0; }\n' },
      removed: ['yacht.h'],
      skipped: ['a.out'],
    });
    expect(decodeTaskResult(JSON.parse(wire), start)).toStrictEqual(reply);
  });

  it('sends a kept workspace to be graded again as its changes too', () => {
    const job = { request: { workspace: { files: start } } };
    const regrade = sentWorkspace(startingFiles(job), collected);
    expect(JSON.stringify(regrade).length).toBeLessThan(1024);
    expect(receivedWorkspace(start, regrade)).toStrictEqual(collected);
    const refused = { kind: 'refused' as const, reason: 'over its limits' };
    expect(receivedWorkspace(start, sentWorkspace(start, refused))).toStrictEqual(refused);
  });
});

describe('a MetaAgent job result over the queue', () => {
  const ran: RanEdit = {
    kind: 'ran',
    worker: 'host-12',
    exitCode: 0,
    timedOut: false,
    overLimit: null,
    tail: '',
    log: 'log\u0000line\n',
    transcript: '{"turns": []}',
    refused: null,
    patch: Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  };

  it.each<[string, RanEdit]>([
    ['an edit (a binary diff of every byte value)', ran],
    ['no edit, no transcript, killed', { ...ran, exitCode: null, transcript: null, patch: Buffer.alloc(0) }],
    ['a timeout over a limit', { ...ran, exitCode: 137, timedOut: true, overLimit: 'wrote more than 1 MiB' }],
    ['a tree the worker refused to send', { ...ran, refused: 'agents/x is a link', patch: Buffer.alloc(0) }],
  ])('arrives as it left: %s', (_what, sent) => {
    expect(decodeEditResult(throughRedis(encodeEditResult(sent)))).toStrictEqual(sent);
  });

  it('reads a result without its transcript field as no result', () => {
    const { transcript: _, ...rest } = encodeEditResult(ran);
    expect(decodeEditResult(throughRedis(rest))).toBeNull();
  });
});
