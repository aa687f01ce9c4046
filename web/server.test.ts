import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiveFile,
  controlSecretFile,
  ensureControlSecret,
  LOG_CAP_BYTES,
  openArchive,
  runLockFile,
  variantFile,
} from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from '../test/run-cli.ts';
import { type RunningServer, startServer } from './server.ts';

let server: RunningServer;
const root = mkdtempSync(path.join(tmpdir(), 'serve-'));
const runs = path.join(root, 'runs');

/** A GET with the path sent exactly as written (no client-side normalisation of `..` or escapes). */
function get(
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; bytes: number; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: rawPath, method: 'GET', headers }, (res) => {
      let body = '';
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, bytes, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  writeSyntheticRun(runs, { id: 'good', variants: 3 });
  const archive = openArchive(archiveFile(path.join(runs, 'good')));
  archive.putTaskResults([
    {
      variantId: 2,
      domain: 'arithmetic',
      split: 'train',
      taskId: 'workspace-task',
      outcome: 'wrong',
      prediction: '--- a/solution.js\n+++ b/solution.js\n@@ -1 +1 @@\n-old\n+new\n',
      rawOutput: 'done',
      score: 0,
      error: null,
      detail: '0/1 passed',
      log: 'FAIL add(2, 3) = -1, expected 5',
      latencyMs: 10,
      costUsd: 0,
      reused: false,
      codeHash: 'c',
      taskModel: 'sim',
    },
  ]);
  archive.close();
  writeSyntheticRun(root, { id: 'outside', variants: 3, model: 'secret-model' });
  writeFileSync(path.join(root, 'secret.txt'), 'secret-text');
  symlinkSync(path.join(root, 'outside'), path.join(runs, 'linked'));
  mkdirSync(path.join(runs, 'good', 'logs', 'variant-1'), { recursive: true });
  symlinkSync(
    path.join(root, 'secret.txt'),
    path.join(runs, 'good', 'logs', 'variant-1', 'meta-transcript.json'),
  );
  server = await startServer({ runsDir: runs });
});

/** A key the redactor knows by its shape. */
const KEY = `sk-ant-${'x'.repeat(30)}`;

afterAll(() => server.close());

describe('hyperagents serve over real HTTP', () => {
  it('listens on 127.0.0.1 and serves the runs under its folder only', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = await get('/api/runs');
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body).map((r: { id: string }) => r.id)).toEqual(['good']);
    expect((await get('/api/runs/good')).status).toBe(200);
    expect((await get('/runs/good')).headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('answers only to the names it is reached by: another Host (a rebound DNS name) gets 421 and no data', async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
      expect((await get('/api/runs/good', { host })).status, host).toBe(200);
    }
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      '127.0.0.1.attacker.example',
      '[::2]',
    ]) {
      const refused = await get('/api/runs/good', { host });
      expect(refused.status, host).toBe(421);
      expect(refused.body).toContain('--allow-host');
      expect(refused.body).not.toContain('secret-model');
      expect((await get('/', { host })).status, host).toBe(421);
    }
  });

  it.each([
    '/api/runs/..%2Foutside',
    '/api/runs/..%2F..%2Foutside',
    '/api/runs/%2e%2e',
    '/api/runs/%2E%2E%2Foutside',
    '/api/runs/linked',
    '/api/runs/%2Ftmp',
    '/api/runs/good%2F..%2F..%2Foutside',
    '/api/runs/..%252Foutside',
    '/runs/../../outside',
    '/runs/..%2Foutside',
    '/runs/linked/variants/1',
    '/api/runs/linked/variants/1',
    '/api/runs/good/variants/..%2F..%2F..%2Fsecret.txt',
    '/api/runs/good/diff/0/1;cat%20secret.txt',
    '/api/runs/good/diff/--output=x/1',
    '/assets/..%2F..%2Fpackage.json',
    '/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/assets/../../secret.txt',
    '/secret.txt',
    '/api/compare?runs=..%2Foutside',
    '/api/runs/linked/mark',
    '/api/runs/linked/update?after=0',
    '/api/runs/linked/regressions',
    '/api/runs/..%2Foutside/regressions',
    '/api/runs/linked/variants/1/logs/gate.log',
    '/api/runs/good/variants/1/logs/..%2F..%2F..%2F..%2Fsecret.txt',
    '/api/runs/good/variants/1/logs/..%2Fvariant-1%2Fmeta-transcript.json',
    '/api/runs/good/variants/1/logs/meta-transcript.json',
    '/api/runs/good/variants/1/logs/%2e%2e',
    '/api/runs/good/variants/1/logs/../../../../secret.txt',
    '/api/runs/good/variants/..%2F1/logs/gate.log',
    '/api/runs/good/variants/1/logs/%2Fetc%2Fpasswd',
    '/api/runs/good/variants/99/logs/gate.log',
  ])('%s reads nothing outside the runs folder', async (raw) => {
    const res = await get(raw);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('outside"');
  });

  it('does not follow a link an agent planted in its log folder', async () => {
    const res = await get('/api/runs/good/variants/1');
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('secret-text');
    expect(JSON.parse(res.body).transcript).toBeNull();
  });

  it('sends an asset once: 304 when the page has it, compressed when the page accepts gzip', async () => {
    const first = await get('/assets/views-run.js');
    expect(first.status).toBe(200);
    const tag = String(first.headers.etag);
    expect(tag).toMatch(/^"|^W\//);
    const again = await get('/assets/views-run.js', { 'if-none-match': tag });
    expect(again.status).toBe(304);
    expect(again.bytes).toBe(0);
    const zipped = await get('/assets/uPlot.iife.min.js', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const plain = await get('/assets/uPlot.iife.min.js');
    expect(zipped.bytes).toBeLessThan(plain.bytes / 2);
  });

  it('answers a live page with a change mark, and with only the variants it does not have', async () => {
    const mark = JSON.parse((await get('/api/runs/good/mark')).body).mark;
    expect(typeof mark).toBe('string');
    expect(JSON.parse((await get('/api/runs/good/mark')).body).mark).toBe(mark);
    const full = JSON.parse((await get('/api/runs/good')).body);
    expect(full.variants.map((v: { id: number }) => v.id)).toEqual([0, 1, 2]);
    expect(full.mark).toBe(mark);
    const update = JSON.parse((await get('/api/runs/good/update?after=1&open=0')).body);
    expect(update.variants.map((v: { id: number }) => v.id)).toEqual([0, 2]);
    expect(update.health.state).toBeDefined();
    // The spend only from the first variant it may not have: an update stays small in a long run.
    type Spend = { generation: number | null };
    expect(update.spendFrom).toBe(0);
    expect(update.spend).toEqual(full.spend);
    const later = JSON.parse((await get('/api/runs/good/update?after=1')).body);
    expect(later.spendFrom).toBe(2);
    expect(later.spend).toEqual(full.spend.filter((s: Spend) => s.generation === null || s.generation >= 2));
    expect(typeof JSON.parse((await get('/api/mark')).body).mark).toBe('string');
  });

  it("gives a workspace task's diff and the test output its grader saw to the variant page", async () => {
    const res = await get('/api/runs/good/variants/2');
    const task = (JSON.parse(res.body).tasks as { taskId: string; prediction: string; log: string }[]).find(
      (t) => t.taskId === 'workspace-task',
    );
    expect(JSON.parse(task!.prediction)).toContain('+new');
    expect(task!.log).toBe('FAIL add(2, 3) = -1, expected 5');
  });

  it('names the runs there when asked for an unknown one', async () => {
    const res = await get('/api/runs/nosuch');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ known: ['good'] });
  });
});

describe("a run's controls over HTTP", () => {
  const TOKEN = 'test-token-0123456789';
  let steer: RunningServer;
  const controlsOf = () => {
    const archive = openArchive(archiveFile(path.join(runs, 'steer')));
    try {
      return archive.eventsOf(['control']).map((e) => e.data);
    } finally {
      archive.close();
    }
  };
  const post = (run: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${steer.url}/api/runs/${run}/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { error?: string; message?: string },
    }));

  beforeAll(async () => {
    writeSyntheticRun(runs, { id: 'steer', variants: 3 });
    // This process stands for the one running the run: the lock names a live pid.
    writeFileSync(runLockFile(path.join(runs, 'steer')), `${process.pid}\n`);
    steer = await startServer({ runsDir: runs, controlToken: TOKEN });
  });
  afterAll(async () => {
    rmSync(runLockFile(path.join(runs, 'steer')), { force: true });
    await steer.close();
  });

  it('refuses a control without the token, with a wrong one, or from another site, and records nothing', async () => {
    const none = await post('steer', { action: 'pause' });
    expect(none.status).toBe(403);
    expect(none.body.error).toContain('#token=');
    expect((await post('steer', { action: 'pause' }, { 'x-control-token': 'guess' })).status).toBe(403);
    const cross = await post(
      'steer',
      { action: 'pause' },
      { 'x-control-token': TOKEN, origin: 'http://evil.example' },
    );
    expect(cross.status).toBe(403);
    expect(cross.body.error).toContain('another site');
    // A server started without a token has its controls off.
    const off = await fetch(`${server.url}/api/runs/steer/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-control-token': TOKEN },
      body: '{"action":"pause"}',
    });
    expect(off.status).toBe(403);
    expect(controlsOf()).toEqual([]);
  });

  it('refuses a change sent under another Host, or from a page of another site, even with the token', async () => {
    const { hostname, port } = new URL(steer.url);
    const send = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            host: hostname,
            port,
            path: '/api/runs/steer/control',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-control-token': TOKEN, ...headers },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end('{"action":"pause"}');
      });
    expect(await send({ host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` })).toBe(
      421,
    );
    expect(await send({ origin: 'null' })).toBe(403);
    expect(await send({ 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await send({ origin: `http://localhost:${port}` })).toBe(403);
    expect(controlsOf()).toEqual([]);
  });

  it('records a control with the token, as hyperagents control does, and says what a bad one lacks', async () => {
    const token = { 'x-control-token': TOKEN, origin: new URL(steer.url).origin };
    const paused = await post('steer', { action: 'pause' }, token);
    expect(paused.status).toBe(200);
    expect(paused.body.message).toContain('paused');
    expect((await post('steer', { action: 'budget', value: 2.5 }, token)).status).toBe(200);
    const bad = await post('steer', { action: 'budget', value: -1 }, token);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('{"action": "budget", "value": USD, 0 or more}');
    expect((await post('nosuch', { action: 'pause' }, token)).status).toBe(404);
    expect(controlsOf()).toEqual([{ action: 'pause' }, { action: 'budget', value: 2.5 }]);
    const page = (await (await fetch(`${steer.url}/api/runs/steer`)).json()) as {
      health: { paused: boolean };
    };
    expect(page.health.paused).toBe(true);
    // A run no process holds has nothing to pause; a note is still kept for when it is resumed.
    const idle = await post('good', { action: 'pause' }, token);
    expect(idle.status).toBe(409);
    expect(idle.body.error).toContain('is not running');
    expect((await post('good', { action: 'note', value: 'try smaller edits' }, token)).status).toBe(200);
  });
});

describe("a run's own control secret", () => {
  let steer: RunningServer;
  const [a, b] = ['secret-a', 'secret-b'].map((id) => path.join(runs, id)) as [string, string];
  const post = (dir: string, secret: string | null, origin: string | null = null) =>
    fetch(`${steer.url}/api/runs/${path.basename(dir)}/control`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret === null ? {} : { 'x-control-token': secret }),
        ...(origin === null ? {} : { origin }),
      },
      body: '{"action":"pause"}',
    }).then((r) => r.status);
  const paused = (dir: string) => {
    const archive = openArchive(archiveFile(dir));
    try {
      return archive.eventsOf(['control']).length;
    } finally {
      archive.close();
    }
  };

  beforeAll(async () => {
    for (const dir of [a, b]) {
      writeSyntheticRun(runs, { id: path.basename(dir), variants: 2 });
      writeFileSync(runLockFile(dir), `${process.pid}\n`);
    }
    steer = await startServer({ runsDir: runs, controlToken: 'serve-token-0123456789' });
  });
  afterAll(async () => {
    for (const dir of [a, b]) rmSync(runLockFile(dir), { force: true });
    await steer.close();
  });

  it('is made once, readable by its owner only, and kept', () => {
    const secret = ensureControlSecret(a);
    expect(secret).toMatch(/^[\w-]{24}$/);
    expect(statSync(controlSecretFile(a)).mode & 0o777).toBe(0o600);
    expect(ensureControlSecret(a)).toBe(secret);
    expect(ensureControlSecret(b)).not.toBe(secret);
  });

  it("steers its run only: refused with another run's secret, with none, or from another site", async () => {
    const [secretA, secretB] = [ensureControlSecret(a), ensureControlSecret(b)];
    expect(await post(a, secretB)).toBe(403);
    expect(await post(a, null)).toBe(403);
    expect(await post(a, secretA, 'http://evil.example')).toBe(403);
    expect(await post(a, `${secretA}x`)).toBe(403);
    expect(paused(a)).toBe(0);
    expect(await post(a, secretA, new URL(steer.url).origin)).toBe(200);
    expect(await post(a, secretA)).toBe(200);
    expect(paused(a)).toBe(2);
    expect(paused(b)).toBe(0);
    // serve's own token still steers every run.
    expect(await post(b, 'serve-token-0123456789')).toBe(200);
    expect(paused(b)).toBe(1);
  });
});

/** The sim, driven by a script: a MetaAgent whose change does not typecheck, then one that times out. */
const SCRIPT = {
  meta: [
    [
      {
        content: 'Editing.',
        toolCalls: [
          {
            name: 'editor',
            input: {
              command: 'create',
              path: 'agents/task/helper.ts',
              file_text: [1, 2, 3, 4, 5].map((n) => `export const n${n}: number = '${n}';\n`).join(''),
            },
          },
        ],
      },
      'Added a helper.',
    ],
    [{ content: 'Waiting.', toolCalls: [{ name: 'bash', input: { command: 'sleep 100' } }] }, 'Never said.'],
  ],
};

describe('the evidence behind a verdict, on a run of the sim', () => {
  const logs = (id: number) => path.join(runs, 'ev', 'logs', `variant-${id}`);
  type Page = {
    variant: { generation: number; failureReason: string };
    logs: { name: string; bytes: number }[];
    transcript: unknown;
    metaAgent: Record<string, unknown> | null;
    tasks: { outcome: string; rawOutput: string | null }[];
  };
  const page = async (id: number): Promise<Page> =>
    JSON.parse((await get(`/api/runs/ev/variants/${id}`)).body);
  const log = async (id: number, name: string) => get(`/api/runs/ev/variants/${id}/logs/${name}`);

  beforeAll(async () => {
    const script = path.join(root, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    const run = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '2'],
      ...['--meta-timeout', '15', '--eval-samples', '6', '--out', runs, '--run-id', 'ev', '--quiet'],
    ]);
    expect(run.code, run.stderr).toBe(0);
  }, 180_000);

  it("serves the gate's log, where the whole typecheck output is, beyond the failure's three errors", async () => {
    const v = await page(1);
    expect(v.variant.generation).toBe(1);
    expect(v.variant.failureReason).toMatch(/^typecheck failed: .*; and 2 more$/);
    expect(v.logs.map((l) => l.name)).toEqual(['meta-agent.log', 'gate.log']);
    const gate = await log(1, 'gate.log');
    expect(gate.status).toBe(200);
    const body = JSON.parse(gate.body);
    for (const n of [1, 2, 3, 4, 5]) expect(body.text).toContain(`helper.ts(${n},14): error TS2322`);
    expect(body.cut).toBe(false);
    const text = await get('/api/runs/ev/variants/1/logs/gate.log?format=text');
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.body).toBe(body.text);
  });

  it('tells how a timed-out MetaAgent ended and what it did, from its log, when it left no transcript', async () => {
    const v = await page(2);
    expect(v.transcript).toBeNull();
    expect(v.metaAgent).toMatchObject({
      ended: 'timed out after 15 s',
      finished: false,
      toolCalls: 1,
      toolCallsFrom: 'log',
      summary: null,
      changedFiles: [],
    });
    expect(v.metaAgent!.modelCalls).toBeGreaterThan(0);
    const meta = JSON.parse((await log(2, 'meta-agent.log')).body);
    expect(meta.text).toContain('assistant: Waiting. [calls bash]');
  });

  it("gives an aborted MetaAgent's account, not its last message as a summary", async () => {
    const file = path.join(logs(1), 'meta-transcript.json');
    const transcript = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(
      file,
      JSON.stringify({
        ...transcript,
        status: 'max_turns',
        finalText: 'Halfway through.',
        messages: [...transcript.messages, { role: 'assistant', content: 'Halfway through.' }],
      }),
    );
    const v = await page(1);
    expect(v.metaAgent).toMatchObject({
      ended: 'stopped at its turn limit',
      finished: false,
      summary: null,
      lastMessage: 'Halfway through.',
      changedFiles: ['agents/task/helper.ts'],
      toolCallsFrom: 'transcript',
    });
    expect(v.metaAgent!.toolCalls).toBe(1);
  });

  it("keeps a parse failure's raw output for the task list", async () => {
    const failed = (await page(0)).tasks.filter((t) => t.outcome === 'parse_failure');
    expect(failed.length).toBeGreaterThan(0);
    for (const t of failed) expect(t.rawOutput).toMatch(/\S/);
  });

  it('never follows a log that is a link, nor a log folder that is one', async () => {
    rmSync(path.join(logs(0), 'task-agent.log'));
    symlinkSync('/etc/passwd', path.join(logs(0), 'task-agent.log'));
    expect((await page(0)).logs).toEqual([]);
    const res = await log(0, 'task-agent.log');
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('root:');
    expect((await get('/api/runs/ev/variants/0/logs/task-agent.log?format=text')).body).not.toContain(
      'root:',
    );

    const elsewhere = mkdtempSync(path.join(root, 'elsewhere-'));
    writeFileSync(path.join(elsewhere, 'gate.log'), 'secret-text');
    rmSync(logs(2), { recursive: true });
    symlinkSync(elsewhere, logs(2));
    expect((await page(2)).logs).toEqual([]);
    const linked = await log(2, 'gate.log');
    expect(linked.status).toBe(404);
    expect(linked.body).not.toContain('secret-text');
  });

  it('cuts a huge log with a note and redacts the keys in it', async () => {
    const huge = `${KEY}\n${'a line of a very long log\n'.repeat(200_000)}`;
    writeFileSync(path.join(logs(1), 'meta-agent.log'), huge);
    expect((await page(1)).logs[0]).toEqual({ name: 'meta-agent.log', bytes: huge.length });
    const res = JSON.parse((await log(1, 'meta-agent.log')).body);
    expect(res).toMatchObject({ cut: true, bytes: huge.length });
    expect(res.text.length).toBeLessThan(LOG_CAP_BYTES + 200);
    expect(res.text).toMatch(/\[cut here: the log is \d+ bytes and only its first \d+ are shown\]\n$/);
    expect(res.text).not.toContain(KEY);
    expect(res.text.startsWith('[redacted]\n')).toBe(true);
  });

  it("lists a variant's files at its commit and shows one, by a path from that list only", async () => {
    const list = await get('/api/runs/ev/variants/1/files');
    expect(list.status).toBe(200);
    const files = JSON.parse(list.body).files as { path: string; bytes: number }[];
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['agents/task/helper.ts']));
    const file = JSON.parse((await get('/api/runs/ev/variants/1/file?path=agents%2Ftask%2Fhelper.ts')).body);
    expect(file.text).toContain("export const n5: number = '5';");
    expect(file.bytes).toBe(files.find((f) => f.path === 'agents/task/helper.ts')!.bytes);
    for (const bad of ['..%2F..%2F..%2Fsecret.txt', '%2Fetc%2Fpasswd', 'agents', 'agents%2Ftask%2F', '']) {
      const res = await get(`/api/runs/ev/variants/1/file?path=${bad}`);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('root:');
      expect(JSON.parse(res.body).error).toBe('the variant has no such file at its commit');
    }
    expect(JSON.parse((await get('/api/runs/ev/variants/2/files')).body).error).toBe(
      'variant 2 has no commit: its code was never recorded',
    );
  });

  it('names a file over the cap with its size instead of showing it', async () => {
    const commit = JSON.parse((await get('/api/runs/ev/variants/1/files')).body).commit;
    const file = await variantFile(path.join(runs, 'ev'), commit, 'agents/task/helper.ts', 100);
    expect(file).toMatchObject({ ok: true, text: null, note: expect.stringMatching(/too large to show/) });
  });

  it('names the logs there are when asked for another', async () => {
    const res = await log(1, 'secrets.log');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).error).toBe(
      "no such log: a variant's logs are meta-agent.log, gate.log, task-agent.log",
    );
  });
});
