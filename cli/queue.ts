import yargs from 'yargs';
import { PROJECT_VERSION } from '../queue/project-version.ts';
import { queueStatus } from '../queue/status.ts';
import { parseOrExplain } from './parse-usage.ts';
import { queueTarget } from './queue-target.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `hyperagents queue status --queue redis://HOST:PORT[/DB] [--json]

Shows the task queue of this version: jobs waiting, active, delayed (to be tried again), completed and
failed, and the workers connected to it.`;

/** `hyperagents queue status`. */
export async function queueCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents queue')
      .usage(USAGE)
      .version(false)
      .option('queue', { type: 'string', requiresArg: true, describe: 'redis://HOST:PORT[/DB]' })
      .option('json', { type: 'boolean', default: false })
      .strictOptions()
      .help(),
    'hyperagents queue',
  );
  if (args.help === true) return 0;
  const [sub, ...extra] = args._.map(String);
  if (sub !== 'status' || extra.length > 0) {
    throw new UsageError(
      `hyperagents queue takes one word, "status"${sub === undefined ? '' : `, not "${[sub, ...extra].join(' ')}"`}. Run hyperagents queue --help.`,
    );
  }
  const target = await queueTarget(args.queue, 'hyperagents queue status');
  const status = await queueStatus(target, PROJECT_VERSION);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return 0;
  }
  const { jobs } = status;
  process.stdout.write(
    `queue ${status.queue} (coordinator version ${status.coordinatorVersion ?? 'none yet'})\n` +
      `jobs: ${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.completed} completed, ${jobs.failed} failed\n` +
      `workers: ${status.workers.length}${status.workers.length === 0 ? '' : ` (${status.workers.join(', ')})`}\n`,
  );
  return 0;
}
