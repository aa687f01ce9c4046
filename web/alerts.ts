import type { ArchiveEvent } from '../archive/index.ts';

/** The run events an Alerts section is made of (harness/run/notifier.ts logs them). */
export const ALERT_EVENTS = ['alert', 'alert_delivery_failed', 'alert_delivered'] as const;
type AlertEvent = ArchiveEvent<(typeof ALERT_EVENTS)[number]>;

/** Where an alert went: `notify` (--notify URL) or `notify-cmd` (--notify-cmd CMD). */
export interface AlertDelivery {
  target: string;
  /**
   * `delivered`; `failed` (every attempt failed); `retrying` (an attempt failed, another follows); `sending`
   * (no answer yet); `unknown` (nothing recorded, and the run no longer runs).
   */
  state: 'delivered' | 'failed' | 'retrying' | 'sending' | 'unknown';
  /** Attempts recorded (failed ones, and the one that got through). */
  attempts: number;
  /** Why each failed attempt failed, in order. */
  errors: string[];
}

export interface SentAlert {
  type: string;
  /** When it was sent (ISO), as the alert says. */
  time: string;
  message: string;
  /** For a budget alert, its share of the budget (80, 100). */
  percent: number | null;
  deliveries: AlertDelivery[];
}

export interface RunAlertsView {
  /** The destinations the run's configuration names now; empty: none (no --notify, no --notify-cmd). */
  targets: { target: 'notify' | 'notify-cmd'; label: string }[];
  alerts: SentAlert[];
}

interface NotifyConfig {
  notifyUrl?: unknown;
  notifyCmd?: unknown;
}

/** A webhook shown by its origin only: its path is often the secret that lets one post to it. */
const origin = (url: string): string => {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return 'an address';
  }
};

/** `url` cut to its origin wherever it occurs in `text` (failures of runs from before the notifier did so). */
const withoutPath = (text: string, url: string | null): string =>
  url === null || url === '' ? text : text.replaceAll(url, origin(url));

const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);

/**
 * The alerts a run sent, oldest first, each with how its delivery to each destination went, from its events;
 * and its destinations, from its configuration. A failure or delivery names its alert by type and time (or,
 * logged before it did, by type alone: the latest alert of that type before it). Pure.
 */
export function runAlertsView(
  config: unknown,
  events: readonly AlertEvent[],
  running: boolean,
): RunAlertsView {
  const c = (config ?? {}) as NotifyConfig;
  const url = str(c.notifyUrl);
  const command = str(c.notifyCmd);
  const targets: RunAlertsView['targets'] = [];
  if (url !== null) targets.push({ target: 'notify', label: `--notify ${origin(url)}` });
  if (command !== null) targets.push({ target: 'notify-cmd', label: '--notify-cmd (a shell command)' });
  const alerts: (SentAlert & { byTarget: Map<string, AlertDelivery> })[] = [];
  for (const event of events) {
    if (event.type === 'alert') {
      const { type, time, message, percent } = event.data;
      alerts.push({
        type,
        time: time ?? event.ts,
        message,
        percent: percent ?? null,
        deliveries: [],
        byTarget: new Map(),
      });
      continue;
    }
    const { alert: type, alertTime: time, target, attempt } = event.data;
    const alert = alerts.findLast((a) => a.type === type && (time === undefined || a.time === time));
    if (alert === undefined) continue;
    let delivery = alert.byTarget.get(target);
    if (delivery === undefined) {
      delivery = { target, state: 'sending', attempts: 0, errors: [] };
      alert.byTarget.set(target, delivery);
    }
    delivery.attempts = attempt ?? delivery.attempts + 1;
    if (event.type === 'alert_delivered') delivery.state = 'delivered';
    else {
      delivery.errors.push(withoutPath(event.data.error, url));
      delivery.state = event.data.retrying ? 'retrying' : 'failed';
    }
  }
  return {
    targets,
    alerts: alerts.map(({ byTarget, ...alert }) => {
      for (const { target } of targets)
        if (!byTarget.has(target))
          byTarget.set(target, { target, state: 'sending', attempts: 0, errors: [] });
      const deliveries = [...byTarget.values()].map((d) =>
        running || (d.state !== 'sending' && d.state !== 'retrying')
          ? d
          : { ...d, state: 'unknown' as const },
      );
      return { ...alert, deliveries };
    }),
  };
}
