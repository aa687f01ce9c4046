import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTaskLimit } from './task-limit.ts';
import { createTaskPool, type TaskPool } from './task-workers.ts';

let tmp: string;
let pool: TaskPool | undefined;

beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'task-workers-'));
});
afterEach(async () => {
  await pool?.close();
  pool = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * A TaskAgent stand-in: a real node process speaking the JSON-lines protocol, with failure modes by input.
 * Like the TaskAgent, it works on each request as it comes, so a pool that wrote a task into a busy worker's
 * input would have it run beyond its limit.
 */
const WORKER = `
const { createInterface } = require('node:readline');
const { appendFileSync, readFileSync } = require('node:fs');
appendFileSync(process.env.SEEN + '.started', process.pid + '\\n');
const reply = (req, output) => process.stdout.write(JSON.stringify({ id: req.id, output }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => handle(JSON.parse(line), () => undefined));
function handle(req, done) {
  appendFileSync(process.env.SEEN, req.id + '\\n');
  const mode = req.input.mode;
  const attempts = readFileSync(process.env.SEEN, 'utf8').split('\\n').filter((id) => id === req.id).length;
  if (mode === 'crash' || (mode === 'crash-once' && attempts === 1)) process.exit(3);
  if (mode === 'hang') return;
  if (mode === 'noise') process.stdout.write('debug output on stdout\\n');
  if (mode === 'flood') {
    for (let i = 0; i < 200; i++) console.error('E'.repeat(1000) + ' key sk-ant-api03-abcdefghijklmnopqrstuvwx');
    reply(req, 'A'.repeat(req.input.size));
    return done();
  }
  if (mode === 'model-error') {
    process.stdout.write(JSON.stringify({ id: req.id, output: '', error: 'budget exceeded' }) + '\\n');
    return done();
  }
  if (mode === 'slow') {
    appendFileSync(process.env.SEEN + '.runs', 'start\\n');
    setTimeout(() => {
      appendFileSync(process.env.SEEN + '.runs', 'end\\n');
      reply(req, 'slow');
      done();
    }, req.input.ms ?? 50);
    return;
  }
  if (mode === 'until-file') {
    const wait = setInterval(() => {
      try { readFileSync(req.input.file); } catch { return; }
      clearInterval(wait);
      reply(req, 'released');
      done();
    }, 5);
    return;
  }
  console.error('working on', req.id);
  reply(req, '<json>{"response": ' + req.input.n * 2 + '}</json>');
  done();
}
`;

function startPool(size: number, timeoutMs = 5000, outputCapBytes?: number, tasksPerWorker = 1): TaskPool {
  const script = path.join(tmp, 'worker.cjs');
  writeFileSync(script, WORKER);
  const started = createTaskPool({
    size,
    tasksPerWorker,
    command: {
      file: process.execPath,
      args: [script],
      env: {
        PATH: process.env.PATH ?? '',
        SEEN: path.join(tmp, 'seen'),
      },
      cwd: tmp,
    },
    taskTimeoutMs: timeoutMs,
    logFile: path.join(tmp, 'workers.log'),
    ...(outputCapBytes === undefined ? {} : { outputCapBytes }),
  });
  pool ??= started;
  return started;
}

describe('TaskAgent worker pool', () => {
  it('feeds many tasks to a few long-lived workers and matches replies by id', async () => {
    const p = startPool(3);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, n) => p.run({ id: `t${n}`, domain: 'arithmetic', input: { n } })),
    );
    replies.forEach((r, n) => {
      expect(r.kind).toBe('reply');
      expect(r.kind === 'reply' && r.output).toBe(`<json>{"response": ${n * 2}}</json>`);
    });
    // The log is the workers' stderr, copied as it comes: the last line may land just after the last reply.
    await vi.waitFor(
      () => expect(readFileSync(path.join(tmp, 'workers.log'), 'utf8')).toContain('working on t19'),
      {
        timeout: 5_000,
      },
    );
  });

  it('starts every worker when warmed, and then serves tasks with those workers alone', async () => {
    const p = startPool(3);
    p.warm();
    const started = (): string[] => {
      try {
        return readFileSync(path.join(tmp, 'seen.started'), 'utf8').trim().split('\n');
      } catch {
        return [];
      }
    };
    while (started().length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, n) => p.run({ id: `w${n}`, domain: 'd', input: { n } })),
    );
    expect(replies.every((r) => r.kind === 'reply')).toBe(true);
    expect(new Set(started()).size).toBe(3);
  });

  it('passes a model failure through as a reply with an error, without retrying', async () => {
    const reply = await startPool(1).run({ id: 'm', domain: 'd', input: { mode: 'model-error' } });
    expect(reply).toMatchObject({ kind: 'reply', output: '', error: 'budget exceeded' });
    expect(readFileSync(path.join(tmp, 'seen'), 'utf8')).toBe('m\n');
  });

  it('ignores stray stdout lines', async () => {
    const reply = await startPool(1).run({ id: 'x', domain: 'd', input: { mode: 'noise', n: 2 } });
    expect(reply).toMatchObject({ kind: 'reply', output: '<json>{"response": 4}</json>' });
    expect(readFileSync(path.join(tmp, 'workers.log'), 'utf8')).toContain('ignored a stdout line');
  });

  it('retries a task once on a fresh worker when its worker crashes', async () => {
    const p = startPool(1);
    const reply = await p.run({ id: 'c', domain: 'd', input: { mode: 'crash-once', n: 5 } });
    expect(reply).toMatchObject({ kind: 'reply', output: '<json>{"response": 10}</json>' });
    const after = await p.run({ id: 'ok', domain: 'd', input: { n: 1 } });
    expect(after.kind).toBe('reply');
  });

  it('reports a worker that always crashes as an infrastructure failure with its exit code', async () => {
    const reply = await startPool(1).run({ id: 'c', domain: 'd', input: { mode: 'crash' } });
    expect(reply.kind).toBe('infra');
    expect(reply.kind === 'infra' && reply.reason).toMatch(/exited \(code 3\).*after one retry/);
  });

  it('gives the tasks running or waiting when it is closed no answer (closed), never a failure to store', async () => {
    const p = startPool(1);
    const running = p.run({ id: 'r', domain: 'd', input: { mode: 'hang' } });
    const waiting = p.run({ id: 'w', domain: 'd', input: { n: 1 } });
    await until(() => lines('seen').includes('r'));
    await p.close();
    expect(await running).toEqual({ kind: 'closed' });
    expect(await waiting).toEqual({ kind: 'closed' });
    expect(await p.run({ id: 'late', domain: 'd', input: { n: 2 } })).toEqual({ kind: 'closed' });
    // The hung task's worker was stopped, and the waiting task never reached one.
    await until(() => !alive(Number(lines('seen.started')[0])));
    expect(lines('seen')).toEqual(['r']);
  });

  it('kills a worker that does not answer within the task timeout and keeps serving other tasks', async () => {
    // The timeout counts from when a task is given to a worker, a fresh worker's start included: long enough
    // for a node process to start on a busy machine.
    const p = startPool(1, 3000);
    const hung = await p.run({ id: 'h', domain: 'd', input: { mode: 'hang' } });
    expect(hung).toMatchObject({ kind: 'infra', agentFault: true });
    expect(hung.kind === 'infra' && hung.reason).toMatch(/no reply within 3 s/);
    const next = await p.run({ id: 'n', domain: 'd', input: { n: 21 } });
    expect(next).toMatchObject({ kind: 'reply', output: '<json>{"response": 42}</json>' });
  });

  it('cuts a long answer and the log at the output cap, with a note, and redacts keys in the log', async () => {
    const p = startPool(1, 5000, 10_000);
    const reply = await p.run({ id: 'f', domain: 'd', input: { mode: 'flood', size: 15_000 } });
    expect(reply.kind).toBe('reply');
    const output = reply.kind === 'reply' ? reply.output : '';
    expect(output.startsWith('A'.repeat(10_000))).toBe(true);
    expect(output).toMatch(/cut here.*5000 more bytes were not kept/);
    await p.close();
    const log = readFileSync(path.join(tmp, 'workers.log'), 'utf8');
    expect(log.length).toBeLessThan(10_500);
    expect(log).toMatch(/cut here/);
    expect(log).not.toContain('sk-ant');
  });

  it('stops a worker whose reply line passes twice the cap, as an infrastructure failure', async () => {
    const reply = await startPool(1, 5000, 10_000).run({
      id: 'g',
      domain: 'd',
      input: { mode: 'flood', size: 50_000 },
    });
    expect(reply.kind).toBe('infra');
  });

  it.each([1, 2])(
    'two pools under one task limit run no more tasks at once than it allows (%i a worker)',
    async (each) => {
      const limit = createTaskLimit(2);
      const pools = [startPool(4, 5000, undefined, each), startPool(4, 5000, undefined, each)];
      const replies = await Promise.all(
        pools.flatMap((p, k) =>
          Array.from({ length: 4 }, (_, n) =>
            limit.run(() => p.run({ id: `s${k}-${n}`, domain: 'd', input: { mode: 'slow' } })),
          ),
        ),
      );
      await pools[1]?.close();
      expect(replies.every((r) => r.kind === 'reply')).toBe(true);
      let running = 0;
      let most = 0;
      for (const event of readFileSync(path.join(tmp, 'seen.runs'), 'utf8').trim().split('\n')) {
        running += event === 'start' ? 1 : -1;
        most = Math.max(most, running);
      }
      expect(most).toBe(2);
    },
  );
});

const lines = (file: string): string[] => {
  try {
    return readFileSync(path.join(tmp, file), 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const until = async (ready: () => boolean): Promise<void> => {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('TaskAgent workers that run several tasks at once', () => {
  it('runs them in one process and matches replies that come out of order', async () => {
    const p = startPool(4, 5000, undefined, 4);
    const replies = await Promise.all(
      [1000, 800, 600, 400].map((ms, n) => p.run({ id: `o${n}`, domain: 'd', input: { mode: 'slow', ms } })),
    );
    expect(replies.map((r) => r.kind === 'reply' && r.output)).toEqual(['slow', 'slow', 'slow', 'slow']);
    expect(lines('seen.started')).toHaveLength(1);
    // All four had started before the first was answered.
    expect(lines('seen.runs').slice(0, 4)).toEqual(['start', 'start', 'start', 'start']);
  });

  it('starts one process for each group of tasks it runs at once, and spreads tasks over them', async () => {
    const p = startPool(10, 5000, undefined, 4);
    p.warm();
    await until(() => lines('seen.started').length >= 3);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        p.run({ id: `g${n}`, domain: 'd', input: { mode: 'slow', ms: 1000 } }),
      ),
    );
    expect(replies.every((r) => r.kind === 'reply')).toBe(true);
    expect(lines('seen.started')).toHaveLength(3);
    let running = 0;
    let most = 0;
    for (const event of lines('seen.runs')) {
      running += event === 'start' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(10);
  });

  it('fails a task that times out alone: the one beside it is answered, then its worker is stopped', async () => {
    const timeoutMs = 3000;
    const p = startPool(2, timeoutMs, undefined, 2);
    const hung = p.run({ id: 'h', domain: 'd', input: { mode: 'hang' } });
    await until(() => lines('seen').includes('h'));
    // Half the timeout later, so it is still within its own when the hung task's runs out.
    await new Promise((resolve) => setTimeout(resolve, timeoutMs / 2));
    const release = path.join(tmp, 'release');
    const beside = p.run({ id: 'b', domain: 'd', input: { mode: 'until-file', file: release } });
    // The hung task's retry has begun: its first try timed out while the other task ran beside it.
    await until(() => lines('seen').filter((id) => id === 'h').length === 2);
    writeFileSync(release, '');
    expect(await beside).toMatchObject({ kind: 'reply', output: 'released' });
    expect(lines('seen').filter((id) => id === 'b')).toHaveLength(1);
    const failed = await hung;
    expect(failed.kind === 'infra' && failed.reason).toMatch(/no reply within 3 s.*after one retry/);
    const first = Number(lines('seen.started')[0]);
    await until(() => !alive(first));
  });

  it('retries once every task a crashed worker was running', async () => {
    const p = startPool(2, 5000, undefined, 2);
    const [crashed, beside] = await Promise.all([
      p.run({ id: 'c', domain: 'd', input: { mode: 'crash-once', n: 5 } }),
      p.run({ id: 'b', domain: 'd', input: { n: 7 } }),
    ]);
    expect(crashed).toMatchObject({ kind: 'reply', output: '<json>{"response": 10}</json>' });
    expect(beside).toMatchObject({ kind: 'reply', output: '<json>{"response": 14}</json>' });
    expect(lines('seen.started').length).toBeGreaterThanOrEqual(2);
  });
});
