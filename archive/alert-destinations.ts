/**
 * A run's stored configuration as it may be shown or handed to other people (a bundle, a page, a report):
 * a `--notify` address keeps only its origin (a webhook's path is often its secret) and a `--notify-cmd`
 * command is left out (it ran on the run's own machine). Undefined when the configuration names neither, so
 * the caller keeps what it has.
 */
export function withoutAlertDestinations(config: unknown): unknown {
  if (typeof config !== 'object' || config === null) return undefined;
  const { notifyUrl, notifyCmd } = config as { notifyUrl?: unknown; notifyCmd?: unknown };
  if (typeof notifyUrl !== 'string' && typeof notifyCmd !== 'string') return undefined;
  return {
    ...config,
    ...(typeof notifyUrl === 'string' ? { notifyUrl: originOnly(notifyUrl) } : {}),
    ...(typeof notifyCmd === 'string' ? { notifyCmd: LEFT_OUT } : {}),
  };
}

const LEFT_OUT = '(left out: it may hold a secret)';

function originOnly(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return LEFT_OUT;
  }
}
