import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { shellWord } from '../../system/shell-word.ts';
import type { QueueFlags } from './queue-flags.ts';

export { shellWord };

/** The file `name` resolves to on the PATH, or null. Never throws. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      if (statSync(file).isFile()) return realpathSync(file);
    } catch {}
  }
  return null;
}

/**
 * The words that start `generate-loop` again from the shell this process was started in, the way it was
 * started: `npx generate-loop` under npm (npx, an npm script), the bare command when that is what the PATH
 * finds, else node with the script's path. A resume command printed with them works when pasted as is.
 */
export function loopCommandWords(
  env: NodeJS.ProcessEnv = process.env,
  script: string | undefined = process.argv[1],
): string[] {
  if (env.npm_command !== undefined) return ['npx', 'generate-loop'];
  if (script === undefined) return ['generate-loop'];
  const name = path.basename(script).replace(/\.mjs$/, '');
  const sub = name === 'hyperagents' ? ['generate-loop'] : [];
  let real = script;
  try {
    real = realpathSync(script);
  } catch {}
  if ((name === 'generate-loop' || name === 'hyperagents') && onPath(name, env) === real)
    return [name, ...sub];
  return ['node', script, ...sub];
}

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
