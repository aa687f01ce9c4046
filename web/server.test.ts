import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../archive/archive.ts';
import { archiveFile } from '../archive/run-folder.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { type RunningServer, startServer } from './server.ts';

let server: RunningServer;
const root = mkdtempSync(path.join(tmpdir(), 'serve-'));
const runs = path.join(root, 'runs');

/** A GET with the path sent exactly as written (no client-side normalisation of `..` or escapes). */
function get(rawPath: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: rawPath, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
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
    '/api/runs/linked/events',
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
