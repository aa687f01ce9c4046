import { describe, expect, it } from 'vitest';
import type { EventInput } from '../archive/index.ts';
import { testEvent } from '../archive/testing/events.ts';
import { type ALERT_EVENTS, runAlertsView } from './alerts.ts';

let id = 0;
const event = <K extends (typeof ALERT_EVENTS)[number]>(kind: K, data: EventInput<K>) =>
  testEvent(++id, kind, data);
const HOOK = 'https://hooks.example.com/services/T0/B0/secret';
const alert = (type: string, time: string, extra: Record<string, unknown> = {}) =>
  event('alert', { type, runId: 'r', time, message: `${type} at ${time}`, ...extra });
const failed = (type: string, time: string | null, attempt: number, retrying: boolean, error: string) =>
  event('alert_delivery_failed', {
    alert: type,
    ...(time === null ? {} : { alertTime: time }),
    target: 'notify',
    attempt,
    retrying,
    error,
  });
const delivered = (type: string, time: string, target: string, attempt: number) =>
  event('alert_delivered', { alert: type, alertTime: time, target, attempt });

describe('runAlertsView', () => {
  it('says where alerts go, a webhook by its origin only', () => {
    expect(runAlertsView({ notifyUrl: HOOK, notifyCmd: 'curl -d @- x' }, [], true).targets).toEqual([
      { target: 'notify', label: '--notify https://hooks.example.com/…' },
      { target: 'notify-cmd', label: '--notify-cmd (a shell command)' },
    ]);
    expect(runAlertsView({ notifyUrl: null, notifyCmd: null }, [], true).targets).toEqual([]);
    expect(runAlertsView(null, [], false)).toEqual({ targets: [], alerts: [] });
  });

  it('gives each of two alerts of one type its own failures and delivery, by the alert time', () => {
    const view = runAlertsView(
      { notifyUrl: HOOK, notifyCmd: null },
      [
        alert('stall', 't1'),
        failed('stall', 't1', 1, true, `${HOOK} answered HTTP 500`),
        alert('stall', 't2'),
        delivered('stall', 't2', 'notify', 1),
        delivered('stall', 't1', 'notify', 2),
        alert('budget', 't3', { percent: 80 }),
        failed('budget', 't3', 1, true, 'fetch failed'),
        failed('budget', 't3', 2, false, 'fetch failed'),
      ],
      true,
    );
    expect(view.alerts.map((a) => [a.type, a.time, a.percent, a.deliveries])).toEqual([
      [
        'stall',
        't1',
        null,
        [
          {
            target: 'notify',
            state: 'delivered',
            attempts: 2,
            errors: ['https://hooks.example.com/… answered HTTP 500'],
          },
        ],
      ],
      ['stall', 't2', null, [{ target: 'notify', state: 'delivered', attempts: 1, errors: [] }]],
      [
        'budget',
        't3',
        80,
        [{ target: 'notify', state: 'failed', attempts: 2, errors: ['fetch failed', 'fetch failed'] }],
      ],
    ]);
  });

  it('reads a failure logged without the alert time as the latest alert of its type before it', () => {
    const [first, second] = runAlertsView(
      { notifyUrl: HOOK, notifyCmd: null },
      [alert('stall', 't1'), alert('stall', 't2'), failed('stall', null, 1, false, 'fetch failed')],
      false,
    ).alerts;
    expect(first?.deliveries).toEqual([{ target: 'notify', state: 'unknown', attempts: 0, errors: [] }]);
    expect(second?.deliveries).toEqual([
      { target: 'notify', state: 'failed', attempts: 1, errors: ['fetch failed'] },
    ]);
  });

  it('shows a delivery with no outcome yet as being sent while the run runs, unknown after', () => {
    const events = [alert('run_end', 't9'), failed('run_end', 't9', 1, true, 'fetch failed')];
    const config = { notifyUrl: HOOK, notifyCmd: 'cat' };
    const states = (running: boolean) =>
      runAlertsView(config, events, running).alerts[0]?.deliveries.map((d) => [d.target, d.state]);
    expect(states(true)).toEqual([
      ['notify', 'retrying'],
      ['notify-cmd', 'sending'],
    ]);
    expect(states(false)).toEqual([
      ['notify', 'unknown'],
      ['notify-cmd', 'unknown'],
    ]);
  });
});
