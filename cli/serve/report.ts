import path from 'node:path';
import yargs from 'yargs';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { refusalOf } from '../shared/run-ref.ts';
import { UsageError } from '../shared/usage-error.ts';
import { outputFile } from '../shared/writable.ts';
import { writeFileWhole } from '../shared/write-output.ts';

const USAGE = `hyperagents report RUN [RUN ...] -o report.html [--runs ./runs]

The browser's pages for these runs as one HTML file that opens from disk, with
no server or network. -o names the file; given a folder (one that exists, or a
path ending in /), report.html inside it. The file is written whole or not at
all: an old file of that name is kept until the new one is complete.`;

const REPORT_NAME = 'report.html';

/** `hyperagents report`: writes the file whole or not at all. */
export async function reportCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents report')
      .usage(USAGE)
      .version(false)
      .option('o', {
        alias: 'output',
        type: 'string',
        requiresArg: true,
        describe: `the HTML file to write (a folder: ${REPORT_NAME} inside it)`,
      })
      .option('runs', { type: 'string', default: './runs', requiresArg: true })
      .strictOptions()
      .help(),
    'hyperagents report',
    argv,
  );
  if (args.help === true) return 0;
  const refs = args._.map(String);
  if (refs.length === 0)
    throw new UsageError('report needs at least one run. Run hyperagents report --help.');
  if (args.o === undefined) throw new UsageError('report needs -o FILE, the HTML file to write.');
  const out = outputFile(args.o, REPORT_NAME, 'the report');
  const runsDir = path.resolve(args.runs);
  // Loaded once the arguments are read, so that `report --help` starts as fast as the other commands.
  const [{ buildReport }, { openRun }, { domainTasks }] = await Promise.all([
    import('../../web/report.ts'),
    import('../archive/archive-refs.ts'),
    import('./domain-tasks.ts'),
  ]);
  const runs = refs.map((ref) => {
    const run = openRun(runsDir, ref);
    run.reader.close();
    return { id: run.id, dir: run.dir };
  });
  let html: string;
  try {
    html = await buildReport(runs, domainTasks());
  } catch (error) {
    throw refusalOf(error);
  }
  writeFileWhole(out, html);
  process.stdout.write(`Wrote ${out} (${Math.round(html.length / 1024)} KB, ${runs.length} run(s)).\n`);
  return 0;
}
