import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { buildReport } from '../web/report.ts';
import { openRun } from './archive-refs.ts';
import { domainTasks } from './domain-tasks.ts';
import { parseOrExplain } from './parse-usage.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `hyperagents report RUN [RUN ...] -o report.html [--runs ./runs]

The browser's pages for these runs as one HTML file that opens from disk, with
no server or network.`;

/** `hyperagents report`: writes the file whole or not at all. */
export async function reportCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents report')
      .usage(USAGE)
      .version(false)
      .option('o', { alias: 'output', type: 'string', requiresArg: true, describe: 'the HTML file to write' })
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
  const runsDir = path.resolve(args.runs);
  const runs = refs.map((ref) => {
    const run = openRun(runsDir, ref);
    run.reader.close();
    return { id: run.id, dir: run.dir };
  });
  const html = await buildReport(runs, domainTasks());
  const out = path.resolve(args.o);
  const partial = `${out}.partial`;
  try {
    writeFileSync(partial, html);
    renameSync(partial, out);
  } catch (error) {
    throw new UsageError(`Cannot write ${out}: ${(error as Error).message}.`);
  }
  process.stdout.write(`Wrote ${out} (${Math.round(html.length / 1024)} KB, ${runs.length} run(s)).\n`);
  return 0;
}
