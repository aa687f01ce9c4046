import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from './run-cli.ts';

describe('hyperagents report and serve from the command line', () => {
  it('writes one self-contained file for the runs named, or nothing with exit code 2', async () => {
    const runs = mkdtempSync(path.join(tmpdir(), 'report-cli-'));
    writeSyntheticRun(runs, { id: 'a', variants: 5, seed: 1 });
    writeSyntheticRun(runs, { id: 'b', variants: 5, seed: 2 });
    const out = path.join(runs, 'report.html');
    const ok = await runCli('hyperagents', ['report', 'a', path.join(runs, 'b'), '-o', out, '--runs', runs]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('2 run(s)');
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="report-data"');
    expect(html).toContain('/compare?runs=a,b');

    const missing = path.join(runs, 'missing.html');
    const bad = await runCli('hyperagents', ['report', 'a', 'nosuch', '-o', missing, '--runs', runs]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no run "nosuch"');
    expect(bad.stderr).toContain('Runs there: a, b.');
    expect(existsSync(missing)).toBe(false);
  }, 180_000);

  it('refuses a bad port with exit code 2', async () => {
    const bad = await runCli('hyperagents', ['serve', '--port', '70000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a whole number from 0 to 65535');
  }, 120_000);
});
