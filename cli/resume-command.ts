import type { QueueFlags } from './queue-flags.ts';
import { loopCommandWords, shellWord } from './self-command.ts';

/**
 * The command that continues a run, printed whenever a run stops before its end; a coordinator's keeps its
 * queue (and --remote-generations), so the jobs it left in Redis are picked up.
 */
export function resumeCommand(runDir: string, queue: QueueFlags | null = null): string {
  const flags = [
    ...(queue?.queue == null ? [] : ['--queue', queue.queue]),
    ...(queue?.remoteGenerations === true ? ['--remote-generations'] : []),
  ];
  return [...loopCommandWords(), '--resume', runDir, ...flags].map(shellWord).join(' ');
}
