import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createNotifier } from './notifier.ts';
import { watchAlerts } from './run-alerts.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'notifier-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A receiver on loopback answering each POST with the next of `statuses` (the last one repeats). */
async function receiver(
  statuses: number[],
  delayMs = 0,
  statusOf: (body: { type?: string }) => number | null = () => null,
) {
  const bodies: unknown[] = [];
  let n = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      bodies.push(body);
      const status = statusOf(body) ?? statuses[Math.min(n++, statuses.length - 1)]!;
      setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, bodies, close: () => new Promise((r) => server.close(r)) };
}

const alert = { type: 'stall', runId: 'r1', time: '2026-01-01T00:00:00.000Z', message: 'run r1 stalled' };
let closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((c) => c()));
  closers = [];
});

describe('the notifier', () => {
  it('retries a receiver that answers 500, and logs the failed attempt', async () => {
    const r = await receiver([500, 200]);
    closers.push(r.close);
    const log: [string, Record<string, unknown>][] = [];
    const notifier = createNotifier(
      { url: r.url, command: null },
      { backoffMs: 50, log: (type, data) => log.push([type, data]) },
    );
    notifier.send(alert);
    await notifier.settle(5000);
    expect(r.bodies).toEqual([alert, alert]);
    expect(log.map(([type]) => type)).toEqual(['alert', 'alert_delivery_failed', 'alert_delivered']);
    expect(log[1]![1]).toMatchObject({
      alert: 'stall',
      alertTime: alert.time,
      target: 'notify',
      attempt: 1,
      retrying: true,
    });
    // The receiver's origin, not its path (a webhook's path is often its secret).
    expect(String(log[1]![1].error)).toBe(`${new URL(r.url).origin} answered HTTP 500`);
    expect(log[2]![1]).toEqual({ alert: 'stall', alertTime: alert.time, target: 'notify', attempt: 2 });
  });

  it('delivers alerts in the order they were sent, a retry before the next alert', async () => {
    const r = await receiver([500, 200]);
    closers.push(r.close);
    const notifier = createNotifier({ url: r.url, command: null }, { backoffMs: 50, log: () => undefined });
    const end = { ...alert, type: 'run_end', message: 'run r1 done' };
    notifier.send(alert);
    notifier.send(end);
    while (r.bodies.length < 3) await sleep(20);
    await notifier.settle(5000);
    expect(r.bodies).toEqual([alert, alert, end]);
  });

  it('sends the end of a run at once while an earlier alert still waits to be retried', async () => {
    const r = await receiver([200], 0, (body) => (body.type === 'stall' ? 500 : null));
    closers.push(r.close);
    const log: [string, Record<string, unknown>][] = [];
    const notifier = createNotifier(
      { url: r.url, command: null },
      { backoffMs: 60_000, log: (type, data) => log.push([type, data]) },
    );
    const end = { ...alert, type: 'run_end', message: 'run r1 done' };
    notifier.send(alert);
    while (!log.some(([type]) => type === 'alert_delivery_failed')) await sleep(20);
    notifier.send(end);
    const started = Date.now();
    await notifier.settle(5000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.bodies).toEqual([alert, end]);
    expect(log.map(([type, d]) => [type, d.alert ?? d.type])).toEqual([
      ['alert', 'stall'],
      ['alert_delivery_failed', 'stall'],
      ['alert', 'run_end'],
      ['alert_delivery_failed', 'stall'],
      ['alert_delivered', 'run_end'],
    ]);
    expect(String(log[3]![1].error)).toContain('the run ended, and its last alert goes out now');
  });

  it('sends an alert once to a receiver that answers after its time is up: it may have it', async () => {
    const r = await receiver([200], 600);
    closers.push(r.close);
    const log: [string, Record<string, unknown>][] = [];
    const notifier = createNotifier(
      { url: r.url, command: null },
      { attemptTimeoutMs: 150, backoffMs: 10, log: (type, data) => log.push([type, data]) },
    );
    notifier.send(alert);
    await notifier.settle(5000);
    await sleep(900);
    expect(r.bodies).toEqual([alert]);
    const failed = log.filter(([type]) => type === 'alert_delivery_failed').map(([, d]) => d);
    expect(failed).toEqual([
      expect.objectContaining({
        attempt: 1,
        retrying: false,
        error: expect.stringContaining('not sent again'),
      }),
    ]);
  });

  it('returns at once while a slow receiver takes its time', async () => {
    const r = await receiver([200], 500);
    closers.push(r.close);
    const notifier = createNotifier({ url: r.url, command: null }, { log: () => undefined });
    const started = Date.now();
    for (let i = 0; i < 5; i++) notifier.send({ ...alert, message: `alert ${i}` });
    expect(Date.now() - started).toBeLessThan(100);
    // One after another, in order: 5 × 0.5 s.
    await notifier.settle(10_000);
    expect(r.bodies.map((b) => (b as { message: string }).message)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `alert ${i}`),
    );
  });

  it('gives up after its attempts on a dead receiver, logging each failure, without throwing', async () => {
    const r = await receiver([200]);
    await r.close();
    const log: [string, Record<string, unknown>][] = [];
    const notifier = createNotifier(
      { url: r.url, command: null },
      { attempts: 3, backoffMs: 20, log: (type, data) => log.push([type, data]) },
    );
    notifier.send(alert);
    await notifier.settle(5000);
    const failures = log.filter(([type]) => type === 'alert_delivery_failed').map(([, d]) => d);
    expect(failures.map((f) => [f.attempt, f.retrying])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
  });

  it('settle stops waiting at its cap', async () => {
    const r = await receiver([200], 10_000);
    closers.push(r.close);
    const notifier = createNotifier({ url: r.url, command: null }, { log: () => undefined });
    notifier.send(alert);
    const started = Date.now();
    await notifier.settle(300);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('runs the command with the alert on stdin, and logs a command that fails', async () => {
    const out = path.join(tmp, 'alert.json');
    const log: [string, Record<string, unknown>][] = [];
    const good = createNotifier(
      { url: null, command: `cat > '${out}'` },
      { log: (type, data) => log.push([type, data]) },
    );
    good.send(alert);
    await good.settle(5000);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(alert);
    const bad = createNotifier(
      { url: null, command: 'echo no route >&2; exit 7' },
      { attempts: 2, backoffMs: 10, log: (type, data) => log.push([type, data]) },
    );
    bad.send(alert);
    await bad.settle(5000);
    const failed = log.filter(([type]) => type === 'alert_delivery_failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]![1]).toMatchObject({ target: 'notify-cmd' });
    expect(String(failed[0]![1].error)).toBe('the command exited with 7: no route');
  });
});

describe('which moments of a run make an alert', () => {
  const sent: Record<string, unknown>[] = [];
  let clock = 0;
  let spent = 0;
  let paused = false;
  const watch = watchAlerts(
    { send: (a) => sent.push(a), settle: async () => undefined },
    {
      runId: 'r1',
      stallMinutes: 1,
      failureStreak: 3,
      spentUsd: () => spent,
      budgetUsd: () => 10,
      paused: () => paused,
      now: () => clock,
    },
  );
  const done = (variant: number, status: string) =>
    watch.observe({ type: 'variant_done', variant, status, score: null, reason: `reason ${variant}` });
  const call = (usd: number) => {
    spent = usd;
    watch.observe({ type: 'llm_call', variant: 1, role: 'task', costUsd: 0 });
  };
  const types = () => sent.map((a) => `${a.type}${a.percent === undefined ? '' : a.percent}`);

  it('tells a stall once, not while paused, and again after a generation finished', () => {
    clock = 59_000;
    watch.check();
    expect(types()).toEqual([]);
    clock = 61_000;
    watch.check();
    watch.check();
    expect(types()).toEqual(['stall']);
    done(1, 'evaluated');
    paused = true;
    clock = 500_000;
    watch.check();
    expect(types()).toEqual(['stall']);
    paused = false;
    clock = 561_000;
    watch.check();
    expect(types()).toEqual(['stall', 'stall']);
  });

  it('tells 80 % and 100 % of the budget once each, and a streak of failures once per streak', () => {
    sent.length = 0;
    call(7.9);
    call(8);
    call(9);
    call(10.2);
    call(11);
    expect(types()).toEqual(['budget80', 'budget100']);
    done(2, 'failed');
    done(3, 'rejected');
    done(4, 'failed');
    done(5, 'failed');
    done(6, 'evaluated');
    done(7, 'failed');
    expect(types()).toEqual(['budget80', 'budget100', 'failure_streak']);
    expect(sent.at(-1)).toMatchObject({ count: 3, variants: [2, 3, 4], lastReason: 'reason 4' });
    expect(String(sent.at(-1)!.message)).toContain('3 generations in a row failed');
  });

  it('tells a harness error and the end with the run, its state, best score and spend', () => {
    sent.length = 0;
    spent = 3.5;
    watch.harnessError('the disk holding /runs/r1 is full');
    watch.ended({ state: 'done', reason: null, best: { id: 4, score: 0.75 }, generations: 7 });
    expect(sent).toMatchObject([
      { type: 'harness_error', runId: 'r1', error: 'the disk holding /runs/r1 is full' },
      {
        type: 'run_end',
        runId: 'r1',
        state: 'done',
        best: { id: 4, score: 0.75 },
        generations: 7,
        spentUsd: 3.5,
      },
    ]);
    expect(sent[1]!.message).toBe('run r1 done; best variant 4 (0.750); $3.50 spent');
  });
});
