import yargs from 'yargs';
import { gradesLine } from '../../domains/index.ts';
import type { JobCounts } from '../../queue/index.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { UsageError } from '../shared/usage-error.ts';
import { queueTarget } from './queue-target.ts';

const USAGE = `hyperagents queue status --queue redis://HOST:PORT[/DB] [--json]

Shows the queues of this version: task jobs and MetaAgent jobs (generate-loop
--remote-generations) waiting, active, delayed (to be tried again), completed
and failed (workspace tasks per language), and the workers connected with the
languages each grades.`;

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
    argv,
  );
  if (args.help === true) return 0;
  const [sub, ...extra] = args._.map(String);
  if (sub !== 'status' || extra.length > 0) {
    throw new UsageError(
      `hyperagents queue takes one word, "status"${sub === undefined ? '' : `, not "${[sub, ...extra].join(' ')}"`}. Run hyperagents queue --help.`,
    );
  }
  const target = await queueTarget(args.queue, 'hyperagents queue status');
  // Loaded once the arguments are read (BullMQ's client), so that `queue --help` starts fast.
  const { PROJECT_VERSION, queueStatus } = await import('../../queue/index.ts');
  const status = await queueStatus(target, PROJECT_VERSION);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return 0;
  }
  const counts = (jobs: JobCounts): string =>
    `${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.completed} completed, ${jobs.failed} failed`;
  process.stdout.write(
    `queue ${status.queue} (coordinator version ${status.coordinatorVersion ?? 'none yet'})\n` +
      `jobs: ${counts(status.jobs)}\n` +
      `MetaAgent jobs: ${counts(status.edits)}\n` +
      Object.entries(status.languageJobs)
        .map(([language, jobs]) => `${language} jobs: ${counts(jobs)}\n`)
        .join('') +
      `workers: ${status.workers.length}${status.workers.length === 0 ? '' : ` (${status.workers.join(', ')})`}\n` +
      status.workers
        .map((w) => {
          const toolchains = status.toolchains[w];
          return `  ${w}: ${toolchains === undefined ? 'languages not published (an older worker?)' : gradesLine(toolchains)}\n`;
        })
        .join(''),
  );
  return 0;
}
