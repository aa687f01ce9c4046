import { once } from 'node:events';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';
import { generations, until } from './run-watch.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-notify-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every MetaAgent looks and changes nothing: each generation is rejected, a streak of failures. */
const script = path.join(tmp, 'script.json');
writeFileSync(script, JSON.stringify({ meta: Array.from({ length: 12 }, () => ['I changed nothing.']) }));

/** Slow calls, a short stall, a nominal price and a budget the run passes after a few generations. */
const RUN = [
  ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '12'],
  ...['--eval-samples', '6', '--sim-latency-ms', '800', '--sim-price-per-mtok', '100'],
  ...['--budget-usd', '0.8', '--stall-minutes', '0.01', '--out', tmp, '--json', '--quiet'],
];

interface Alert {
  type: string;
  runId: string;
  time: string;
  message: string;
  [fact: string]: unknown;
}

/** A webhook on loopback: the alerts it was sent, in order; it answers 500 to the first, 200 after. */
async function receiver() {
  const alerts: Alert[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      alerts.push(JSON.parse(text) as Alert);
      res.writeHead(alerts.length === 1 ? 500 : 200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/alerts`, alerts, close: () => server.close() };
}

const eventsOf = (runDir: string, type: string): Record<string, unknown>[] => {
  const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type) as {
      data: string;
    }[];
    return rows.map((r) => JSON.parse(r.data) as Record<string, unknown>);
  } finally {
    db.close();
  }
};

describe('generate-loop --notify: a run that stalls, fails in a row and passes its budget', () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  let summary: RunSummary;

  beforeAll(async () => {
    hook = await receiver();
    const result = await runCli('generate-loop', [...RUN, '--run-id', 'watched', '--notify', hook.url]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
  }, 600_000);
  afterAll(() => hook?.close());

  const received = () => {
    // The first alert was answered 500 and sent again: it arrives twice.
    const [first, ...rest] = hook.alerts;
    return rest[0]?.time === first?.time && rest[0]?.type === first?.type ? rest : hook.alerts;
  };

  it('posts a stall, 80 % and 100 % of the budget, the failure streak and the end, in that order', () => {
    expect(summary.stopped).toMatch(/^budget reached/);
    const kinds = received().map((a) => (a.type === 'budget' ? `budget ${a.percent}` : a.type));
    expect(kinds[0]).toBe('stall');
    expect(kinds.filter((k) => k !== 'stall')).toEqual([
      'failure_streak',
      'budget 80',
      'budget 100',
      'run_end',
    ]);
    for (const alert of received()) {
      expect(alert.runId).toBe('watched');
      expect(Number.isNaN(Date.parse(alert.time))).toBe(false);
      expect(alert.message).toContain('run watched');
    }
  });

  it('says in each alert what a person would want to know', () => {
    const byType = (type: string, percent?: number) =>
      received().find((a) => a.type === type && (percent === undefined || a.percent === percent))!;
    expect(byType('failure_streak')).toMatchObject({ count: 3, variants: [1, 2, 3] });
    expect(byType('failure_streak').message).toContain('3 generations in a row failed');
    expect(byType('budget', 80)).toMatchObject({ budgetUsd: 0.8 });
    expect(byType('budget', 80).spentUsd).toBeGreaterThanOrEqual(0.64);
    expect(byType('budget', 100).message).toMatch(/reached its budget: \$0\.\d\d of \$0\.80 spent/);
    const end = byType('run_end');
    expect(end).toMatchObject({ state: 'stopped', best: { id: 0 } });
    expect(end.spentUsd).toBeCloseTo(summary.costUsd, 3);
    expect(end.reason).toBe(summary.stopped);
  });

  it('retried the alert its receiver refused with a 500, and logged every alert and the failure', () => {
    expect(hook.alerts[0]).toEqual(hook.alerts[1]);
    const failed = eventsOf(summary.runDir, 'alert_delivery_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ alert: 'stall', target: 'notify', attempt: 1, retrying: true });
    expect(String(failed[0]!.error)).toContain('HTTP 500');
    expect(eventsOf(summary.runDir, 'alert').map((a) => a.type)).toEqual(received().map((a) => a.type));
  });

  it('keeps the alert settings on --resume', async () => {
    const result = await runCli('generate-loop', [
      ...[
        '--resume',
        'watched',
        '--out',
        tmp,
        '--budget-usd',
        '5',
        '--generations',
        '4',
        '--json',
        '--quiet',
      ],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const ends = hook.alerts.filter((a) => a.type === 'run_end');
    expect(ends).toHaveLength(2);
    expect(ends[1]).toMatchObject({ state: 'done', runId: 'watched' });
  }, 600_000);
});

describe('generate-loop --notify-cmd, beside a receiver that is down', () => {
  it('runs the command for each alert and finishes the run as if nobody listened', async () => {
    const dead = await receiver();
    dead.close();
    const out = path.join(tmp, 'alerts.jsonl');
    const started = Date.now();
    const result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '2', '--eval-samples', '4'],
      ...['--out', tmp, '--run-id', 'unheard', '--json', '--quiet', '--notify', dead.url],
      ...['--notify-cmd', `cat >> '${out}'; echo >> '${out}'`],
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(120_000);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.variants).toHaveLength(3);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const end = JSON.parse(lines.at(-1)!) as Alert;
    expect(end).toMatchObject({ type: 'run_end', runId: 'unheard', state: 'done' });
    const failures = eventsOf(summary.runDir, 'alert_delivery_failed');
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((f) => f.target === 'notify')).toBe(true);
  }, 300_000);
});

describe('generate-loop --notify-cmd on a harness error', () => {
  it('sends the error, then the end of the failed run', async () => {
    const out = path.join(tmp, 'harness-error');
    const alerts = path.join(tmp, 'harness-error.jsonl');
    const running = runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '6', '--eval-samples', '6'],
      ...['--sim-latency-ms', '150', '--out', out, '--run-id', 'r1', '--quiet'],
      ...['--notify-cmd', `cat >> '${alerts}'; echo >> '${alerts}'`],
    ]);
    // Once variant 1 is under way, its variant repository goes (moved in one step: the run still writes to it).
    await until(() => generations(path.join(out, 'r1')).length > 0);
    renameSync(path.join(out, 'r1', 'variants.git'), path.join(tmp, 'removed.git'));
    const result = await running;
    expect(result.code).toBe(1);
    const sent = readFileSync(alerts, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Alert);
    expect(sent.map((a) => a.type)).toEqual(['harness_error', 'run_end']);
    expect(sent[0]!.message).toMatch(/^run r1 hit a harness error: .*was removed while the run was going/);
    expect(sent[1]).toMatchObject({ state: 'failed', runId: 'r1' });
  }, 300_000);
});

describe('generate-loop refuses alert options it cannot use, in one line', () => {
  it.each([
    [
      ['--notify', 'hooks.example.com'],
      /^generate-loop: --notify must be an http:\/\/ or https:\/\/ address/,
    ],
    [
      ['--stall-minutes', '10'],
      /--stall-minutes sets when an alert goes out: give --notify URL or --notify-cmd/,
    ],
  ])('%j', async (flags, message) => {
    const result = await runCli('generate-loop', ['--domains', 'arithmetic', '--model', 'sim', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
