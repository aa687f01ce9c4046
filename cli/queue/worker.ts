import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yargs from 'yargs';
import { gradesLine, LANGUAGE_NAMES, type LanguageName } from '../../domains/index.ts';
import { SANDBOX_MODES } from '../../harness/process/index.ts';
import { PROJECT_ROOT } from '../../harness/run/index.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { untilStopped } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';
import { queueTarget } from './queue-target.ts';
import { redisLine } from './redis-progress.ts';

const USAGE = `hyperagents worker --queue redis://HOST:PORT[/DB] [--concurrency 2] [--sandbox
    auto|bwrap|none] [--languages python,go,...]

Takes evaluation tasks from a coordinator's queue (generate-loop --queue), runs
each variant's TaskAgent here, in this machine's sandbox, and grades its replies
with this installation's domains. With generate-loop --remote-generations it
also takes MetaAgent runs: the parent's MetaAgent edits a copy of the parent
here, in the sandbox, and the edit goes back as a diff. Agents reach models only
through the coordinator's gateway; no provider key is needed or read here.
--concurrency applies to tasks and to MetaAgent runs each. Runs until Ctrl-C; a
job it was running is then taken by another worker.

At start it finds which Polyglot languages it can grade (each toolchain as the
grader runs it) and says so; it takes workspace tasks of those languages only
(--languages: of these only), and every other task.`;

/** `hyperagents worker`: runs until interrupted. */
export async function workerCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents worker')
      .usage(USAGE)
      .version(false)
      .option('queue', { type: 'string', requiresArg: true, describe: 'redis://HOST:PORT[/DB]' })
      .option('concurrency', { type: 'number', default: 2, requiresArg: true, describe: 'tasks at once' })
      .option('languages', {
        type: 'string',
        requiresArg: true,
        describe: `workspace tasks of these languages only (${LANGUAGE_NAMES.join(', ')})`,
      })
      .option('sandbox', {
        type: 'string',
        default: 'auto',
        requiresArg: true,
        describe: SANDBOX_MODES.join(' | '),
      })
      .strictOptions()
      .help(),
    'hyperagents worker',
    argv,
  );
  if (args.help === true) return 0;
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1 || args.concurrency > 256) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 256, not ${args.concurrency}.`);
  }
  if (!(SANDBOX_MODES as readonly string[]).includes(args.sandbox)) {
    throw new UsageError(`--sandbox must be one of ${SANDBOX_MODES.join(', ')}, not "${args.sandbox}".`);
  }
  // Loaded once the arguments are read (the sandbox's checks, BullMQ's client), so `worker --help` starts fast.
  const [{ resolveSandbox }, { formatRedisTarget, PROJECT_VERSION, startQueueWorker }] = await Promise.all([
    import('../../harness/process/index.ts'),
    import('../../queue/index.ts'),
  ]);
  const sandbox = resolveSandbox(args.sandbox as (typeof SANDBOX_MODES)[number]);
  if (sandbox.kind === 'missing' || (sandbox.kind === 'none' && args.sandbox !== 'none')) {
    throw new UsageError(
      'This worker would run agent-written code from the queue without a sandbox: bubblewrap does not work ' +
        'here. Install it (Debian/Ubuntu: apt-get install bubblewrap), or pass --sandbox none to accept ' +
        'running that code unsandboxed on this machine.',
    );
  }
  const languages = args.languages === undefined ? null : parseLanguages(args.languages);
  const target = await queueTarget(args.queue, 'hyperagents worker');
  const started = await startQueueWorker({
    target,
    version: PROJECT_VERSION,
    concurrency: args.concurrency,
    sandbox,
    languages,
    nodeModules: path.join(PROJECT_ROOT, 'node_modules'),
    workDir: mkdtempSync(path.join(tmpdir(), 'hyperagents-worker-')),
    note: (line) => process.stderr.write(`worker: ${line}\n`),
    onRedis: (event) => process.stderr.write(`worker: ${redisLine(event)}\n`),
  });
  if (!started.ok) throw new UsageError(started.message);
  process.stderr.write(
    `worker ${started.id}: taking tasks from ${formatRedisTarget(target)} (version ${PROJECT_VERSION}, ` +
      `concurrency ${args.concurrency}, sandbox ${sandbox.kind === 'bwrap' ? 'bubblewrap' : `none: ${sandbox.why}`}). Ctrl-C to stop.\n` +
      `worker ${started.id}: ${gradesLine(started.toolchains)}\n`,
  );
  await untilStopped();
  await started.close();
  return 0;
}

/** `--languages python,go`: each a language the worker may grade. */
function parseLanguages(value: string): LanguageName[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !(LANGUAGE_NAMES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--languages takes a comma-separated list of ${LANGUAGE_NAMES.join(', ')}${unknown.length > 0 ? `, not ${unknown.map((n) => JSON.stringify(n)).join(', ')}` : ''}.`,
    );
  }
  return names as LanguageName[];
}
