import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { buildReport } from '../web/report.ts';
import { openRun } from './archive-refs.ts';
import { domainTasks } from './domain-tasks.ts';
import { parseOrExplain } from './parse-usage.ts';
import { refusalOf } from './run-ref.ts';
import { UsageError } from './usage-error.ts';
import { writeFileWhole } from './write-output.ts';

const USAGE = `hyperagents report RUN [RUN ...] -o report.html [--runs ./runs]

The browser's pages for these runs as one HTML file that opens from disk, with
no server or network. -o names the file; given a folder (one that exists, or a
path ending in /), report.html inside it. The file is written whole or not at
all: an old file of that name is kept until the new one is complete.`;

const REPORT_NAME = 'report.html';

const statOf = (p: string, follow: boolean) => {
  try {
    return follow ? statSync(p) : lstatSync(p);
  } catch {
    return null;
  }
};

/** The file `-o` asks for, checked before the report is built: its folder must exist and be writable. */
function reportFile(given: string): string {
  const resolved = path.resolve(given);
  const namesFolder = /[\\/]$/.test(given) || statOf(resolved, true)?.isDirectory() === true;
  const file = namesFolder ? path.join(resolved, REPORT_NAME) : resolved;
  const folder = path.dirname(file);
  if (statOf(folder, true)?.isDirectory() !== true) {
    throw new UsageError(
      `-o ${given}: there is no folder ${folder} to write the report in. Create it first, or give another path.`,
    );
  }
  const existing = statOf(file, false);
  if (existing !== null && !existing.isFile() && !existing.isSymbolicLink()) {
    throw new UsageError(`-o ${given}: ${file} exists and is not a regular file. Give another path.`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(`-o ${given}: no permission to write in ${folder}. Give another path.`);
  }
  return file;
}

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
  const out = reportFile(args.o);
  const runsDir = path.resolve(args.runs);
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
