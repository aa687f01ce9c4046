import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { procStat } from '../../system/proc-stat.ts';

/**
 * Signals that stop a command the way Ctrl-C does: every signal whose default action ends the process and
 * that a person or a system sends to stop one. Not the fault signals (SIGSEGV, SIGBUS, ...: no safe state
 * is left to stop from), SIGUSR1 (Node's inspector), SIGPROF (profilers), nor SIGKILL and SIGSTOP, which
 * cannot be caught.
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR2',
  'SIGALRM',
  'SIGVTALRM',
  'SIGXCPU',
  'SIGPWR',
];

/** Why a command was asked to stop: a signal, or the end of the process that started it. */
export type StopCause = { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'parent'; parent: string };

export function describeStop(cause: StopCause): string {
  if (cause.kind === 'parent') return `the ${cause.parent} that started this process ended`;
  return cause.signal === 'SIGINT' ? 'Ctrl-C' : cause.signal;
}

/** The exit code of a process that a second stop request ends at once: 128 + the signal's number. */
export function abortExitCode(cause: StopCause): number {
  const signal = cause.kind === 'signal' ? cause.signal : 'SIGHUP';
  return 128 + (constants.signals[signal] ?? constants.signals.SIGINT);
}

export interface StopWatch {
  /** Aborted by the first stop request. */
  signal: AbortSignal;
  dispose(): void;
}

/**
 * Watches for stop requests: the signals above, and the end of the process that started this one when
 * this one's life is tied to it (see watchParent). `first` runs on the first request (the command stops
 * cleanly), `again` on each later one (the command exits at once).
 */
export function watchStops(handlers: {
  first(cause: StopCause): void;
  again(cause: StopCause): void;
}): StopWatch {
  const controller = new AbortController();
  const request = (cause: StopCause): void => {
    if (controller.signal.aborted) {
      handlers.again(cause);
      return;
    }
    controller.abort(cause);
    // After a hangup the terminal is gone, and a parent that ended may have held the other end of a pipe:
    // a write that fails there must not end the clean stop.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    handlers.first(cause);
  };
  const onSignal = (signal: NodeJS.Signals): void => request({ kind: 'signal', signal });
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const stopWatchingParent = watchParent((parent) => request({ kind: 'parent', parent }));
  return {
    signal: controller.signal,
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      stopWatchingParent();
    },
  };
}

/**
 * The Ctrl-C handling of a command that stops cleanly: the first stop request (Ctrl-C, another stop signal,
 * the end of the process that started it) aborts the signal and says `<cause>: <stopping>.`; a second one
 * prints `aborted` (when given) and exits at once with 128 + the signal's number.
 */
export function stopOnSignals(stopping: string, aborted: string | null = null): StopWatch {
  return watchStops({
    first(cause) {
      process.stderr.write(`\n${describeStop(cause)}: ${stopping}.\n`);
    },
    again(cause) {
      if (aborted !== null) process.stderr.write(`\n${aborted}\n`);
      process.exit(abortExitCode(cause));
    },
  });
}

/** A process whose parent ended is stopped within this long (the npx case, which is polled). */
const PARENT_POLL_MS = 1000;

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'ash']);

/**
 * Calls `gone` when the process that started this one ends, where this one's life is tied to it:
 * - a parent that keeps an IPC channel to it (`hyperagents experiment` starts its runs so): the channel
 *   closes when the parent ends, however it ends, SIGKILL included;
 * - npx (`npm exec`): when npm ends (a signal npm does not pass on, such as SIGHUP or SIGKILL), and when the
 *   shell npm runs the command through ends (npm passes SIGTERM to that shell, which dies of it). Linux only
 *   (reads /proc); npm's own SIGINT and SIGTERM reach this process directly (see .npmrc).
 * Returns the function that stops watching.
 */
function watchParent(gone: (parent: string) => void): () => void {
  if (typeof process.send === 'function') {
    const onDisconnect = (): void => gone('experiment');
    process.on('disconnect', onDisconnect);
    // The parent may have ended before this process started watching.
    const early = process.connected ? null : setImmediate(onDisconnect);
    return () => {
      if (early !== null) clearImmediate(early);
      process.off('disconnect', onDisconnect);
    };
  }
  if (process.env.npm_lifecycle_event !== 'npx') return () => undefined;
  const parent = parentOf('self');
  if (parent === null) return () => undefined;
  const grandparent = SHELLS.has(commandName(parent)) ? parentOf(String(parent)) : null;
  const timer = setInterval(() => {
    const ended =
      parentOf('self') !== parent || (grandparent !== null && parentOf(String(parent)) !== grandparent);
    if (!ended) return;
    clearInterval(timer);
    gone('npx process');
  }, PARENT_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The parent of a process; null when it cannot be read. */
function parentOf(pid: string): number | null {
  return procStat(pid)?.parent ?? null;
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * For commands that run until they are stopped (serve, worker): resolves on the first stop request, after
 * which they close what they hold. It keeps watching, so a second request exits at once.
 */
export function untilStopped(): Promise<StopCause> {
  return new Promise((resolve) => {
    watchStops({ first: resolve, again: (cause) => process.exit(abortExitCode(cause)) });
  });
}
