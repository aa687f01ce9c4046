import { closeMatches } from '../system/close-matches.ts';
import { COMMANDS, type Command } from './commands.ts';
import { reportError } from './shared/errors.ts';
import { helpWidth } from './shared/parse-usage.ts';
import { UsageError } from './shared/usage-error.ts';

const OPTIONS: Command['help'] = [
  {
    usage: '--help, -h',
    summary: 'this help; "hyperagents <command> --help" for a command\'s options',
  },
  { usage: '--version', summary: 'the version of hyperagents-ts' },
];

/** Where the summaries start: a form longer than fits before it gets a line of its own. */
const SUMMARY_COLUMN = 27;

/** One form and its summary as help lines: the summary wrapped at `width`, in its own column. */
function helpEntry({ usage, summary }: Command['help'][number], width: number): string[] {
  const lines: string[] = [];
  let line = `  ${usage}`;
  if (line.length > SUMMARY_COLUMN - 2) {
    lines.push(line);
    line = '';
  }
  let words = '';
  for (const word of summary.split(' ')) {
    if (words !== '' && SUMMARY_COLUMN + words.length + 1 + word.length > width) {
      lines.push(`${line.padEnd(SUMMARY_COLUMN)}${words}`);
      line = '';
      words = word;
    } else words = words === '' ? word : `${words} ${word}`;
  }
  lines.push(`${line.padEnd(SUMMARY_COLUMN)}${words}`);
  return lines;
}

function help(): string {
  const width = Math.max(helpWidth(), SUMMARY_COLUMN + 20);
  const section = (entries: Command['help']) => entries.flatMap((entry) => helpEntry(entry, width));
  return [
    'hyperagents <command> [options]',
    '',
    'Commands:',
    ...section(COMMANDS.flatMap((command) => command.help)),
    '',
    'Options:',
    ...section(OPTIONS),
    '',
  ].join('\n');
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  switch (command) {
    case '--version':
      process.stdout.write(`${(await import('../harness/run/index.ts')).HARNESS_VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${help()}\n`);
      return command === undefined ? 2 : 0;
  }
  const found = COMMANDS.find((c) => c.name === command);
  if (found !== undefined) return await (await found.load())(rest);
  const names = COMMANDS.map((c) => c.name);
  const near = closeMatches(command, names);
  throw new UsageError(
    `Unknown command "${command}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
      `Commands: ${names.join(', ')}. Run hyperagents --help.`,
  );
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    return await run(command, rest);
  } catch (error) {
    return reportError(error, 'hyperagents');
  }
}
