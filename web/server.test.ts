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
    '/api/runs/linked/mark',
    '/api/runs/linked/update?after=0',
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
