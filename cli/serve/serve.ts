import { randomBytes } from 'node:crypto';
import path from 'node:path';
import yargs from 'yargs';
import { hostName } from '../../web/host-check.ts';
import type { startServer } from '../../web/server.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { assertRunsFolder, RUNS_OPTION } from '../shared/run-ref.ts';
import { untilStopped } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';

const USAGE = `hyperagents serve [--port 8080] [--runs ./runs] [--host 127.0.0.1]
                 [--allow-host NAME ...]

The archive browser: every run under --runs (a folder that exists), live while
a run is going. --host is an address of this machine: 127.0.0.1 (the default),
::1, or 0.0.0.0 for every interface.

It answers only to the names it is reached by: 127.0.0.1, localhost, ::1, the
--host given (with 0.0.0.0, every address of this machine) and each name added
with --allow-host (e.g. --allow-host myhost.lan); any other Host is refused
with 421, so a site that points its own name at this machine reads nothing. A
request that changes something from a page of another site is refused (403).

A running run's page has controls (pause, resume, stop-after, budget, note),
as hyperagents control has. They need the control token this command makes and
prints, in the address it prints (#token=...): open that address once and the
browser keeps it. A run's own secret, in the address generate-loop printed for
it (/runs/RUN#secret=...), steers that run too. Without either the page only
reads.

A run's page lists the alerts it sent (--notify, --notify-cmd) and how each
delivery went, its estimate at the start beside what it took, and a link that
downloads its reproducibility bundle (as hyperagents archive bundle writes it).`;

/** getaddrinfo's answers for a name that does not resolve (now or at all). */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** The --allow-host names, each a host name or address without a port or a scheme. */
function allowedNames(given: readonly string[]): string[] {
  return given.map((raw) => {
    const name = hostName(raw);
    if (name === null || name !== raw.toLowerCase().replace(/^\[|\]$/g, ''))
      throw new UsageError(
        `--allow-host ${raw}: give a name or address as a browser's address bar has it, without a scheme or ` +
          'port, e.g. --allow-host myhost.lan or --allow-host 192.168.1.20.',
      );
    return name;
  });
}

/** `hyperagents serve`: runs until interrupted. */
export async function serveCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents serve')
      .usage(USAGE)
      .version(false)
      .option('port', { type: 'number', default: 8080, requiresArg: true })
      .option('runs', RUNS_OPTION)
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        requiresArg: true,
        describe: 'address to bind',
      })
      .option('allow-host', {
        type: 'string',
        array: true,
        default: [] as string[],
        requiresArg: true,
        describe: 'another name this server answers to (repeat for more)',
      })
      .strictOptions()
      .help(),
    'hyperagents serve',
    argv,
  );
  if (args.help === true) return 0;
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not ${args.port}.`);
  }
  const runsDir = path.resolve(args.runs);
  assertRunsFolder(runsDir, '--runs');
  let server: Awaited<ReturnType<typeof startServer>>;
  const controlToken = randomBytes(18).toString('base64url');
  // Loaded once the arguments are read, so that `serve --help` starts as fast as the other commands.
  const [{ startServer }, { bundleRun }, { domainTasks }] = await Promise.all([
    import('../../web/server.ts'),
    import('../archive/archive-bundle.ts'),
    import('./domain-tasks.ts'),
  ]);
  try {
    server = await startServer({
      runsDir,
      port: args.port,
      host: args.host,
      tasks: domainTasks(),
      controlToken,
      allowHosts: allowedNames(args.allowHost),
      // A recording or sim script outside the runs folder is not served: a run's stored config names it.
      bundle: (runDir, file) => bundleRun(runDir, file, { within: runsDir }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`Port ${args.port} is in use. Pick another with --port.`);
    if (code === 'EADDRNOTAVAIL' || (code !== undefined && UNRESOLVED.has(code))) {
      const why =
        code === 'EADDRNOTAVAIL' ? 'it is not an address of this machine' : `it does not resolve (${code})`;
      throw new UsageError(
        `--host ${args.host} cannot be served on: ${why}. Give an address of this machine: 127.0.0.1 (the ` +
          'default), ::1, or 0.0.0.0 for every interface.',
      );
    }
    if (code === 'EACCES')
      throw new UsageError(`--port ${args.port} needs privileges this user lacks. Pick a port above 1023.`);
    throw error;
  }
  if (args.host !== '127.0.0.1' && args.host !== 'localhost' && args.host !== '::1') {
    process.stderr.write(
      `warning: serving on ${args.host}: anyone who can reach it can read these archives.\n`,
    );
  }
  process.stdout.write(
    `Archive browser for ${runsDir} at ${server.url}/ (Ctrl-C to stop)\n` +
      `To pause, stop or steer runs from the page, open it once at: ${server.url}/#token=${controlToken}\n`,
  );
  await untilStopped();
  await server.close();
  return 0;
}
