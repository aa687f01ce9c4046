import yargs from 'yargs';
import { archiveFile, controlMessage, findRun, openArchive } from '../../archive/index.ts';
import { CONTROL_ACTIONS, type Control, recordControl, runHolder } from '../../harness/run/index.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { assertReadableArchive, RUNS_OPTION } from '../shared/run-ref.ts';
import { resumeCommand, shellWord } from '../shared/self-command.ts';
import { UsageError } from '../shared/usage-error.ts';

const USAGE = `hyperagents control RUN pause | resume | stop-after | budget USD | note TEXT [--runs ./runs]

Steers a running run (RUN: its id under --runs, or its folder). The control is
recorded in the run's archive, where the process running it reads it:
  pause        start no new generation until resume (those under way go on)
  resume       start generations again
  stop-after   let the generations under way finish, start no more, and stop
               the run cleanly (generate-loop --resume continues it)
  budget USD   the run's --budget-usd from now on; at or below what it has
               spent, the run stops as at its budget
  note TEXT    recorded, and given to the next MetaAgent (notes.md in its
               evals folder)`;

/** The control the words after RUN ask for, or a refusal that says what each action takes. Pure. */
export function parseControl(words: readonly string[]): Control {
  const [action, ...rest] = words;
  const value = rest.join(' ').trim();
  const known = CONTROL_ACTIONS.join(', ');
  switch (action) {
    case 'pause':
    case 'resume':
    case 'stop-after':
      if (rest.length > 0) throw new UsageError(`${action} takes nothing after it; got "${value}".`);
      return { action };
    case 'budget': {
      const usd = Number(value);
      if (value === '' || !Number.isFinite(usd) || usd < 0)
        throw new UsageError(
          `budget takes an amount of US dollars, 0 or more (e.g. budget 5 or budget 2.50); not "${value}".`,
        );
      return { action, value: usd };
    }
    case 'note':
      if (value === '') throw new UsageError('note takes the text of the note: note "try smaller edits".');
      return { action, value };
    case undefined:
      throw new UsageError(`Say what to do after the run: one of ${known}.`);
    default:
      throw new UsageError(`"${action}" is not a control; use one of ${known}.`);
  }
}

/** `hyperagents control RUN ACTION [VALUE]`: records a control in a run's archive. */
export async function controlCommand(argv: string[]): Promise<number> {
  const args = await parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents control')
      .usage(USAGE)
      .version(false)
      .option('runs', RUNS_OPTION)
      .parserConfiguration({ 'unknown-options-as-args': false })
      .strictOptions()
      .help(),
    'hyperagents control',
    argv,
  );
  if (args.help === true) return 0;
  const [ref, ...words] = args._.map(String);
  if (ref === undefined)
    throw new UsageError(
      'Name the run to control: hyperagents control RUN pause | resume | ... (see --help).',
    );
  const control = parseControl(words);
  const found = findRun(args.runs, ref);
  if (!found.ok)
    throw new UsageError(
      `no run "${ref}" in ${args.runs}: give a run id there (or --runs with the folder that holds it), or ` +
        'the path of a run folder.',
    );
  assertReadableArchive(found.dir, 'browse');
  const running = runHolder(found.dir) !== null;
  if (!running && control.action !== 'note') {
    const extra = control.action === 'budget' ? ` --budget-usd ${control.value}` : '';
    throw new UsageError(
      `run ${found.id} is not running: no process holds it, so there is nothing to ${control.action}. ` +
        `Continue it with: ${resumeCommand(found.dir)}${extra}`,
    );
  }
  const archive = openArchive(archiveFile(found.dir));
  try {
    recordControl(archive, control);
  } finally {
    archive.close();
  }
  process.stdout.write(
    `${controlMessage(found.id, control, `hyperagents control ${shellWord(found.id)} resume`)}${running ? '' : ' (when the run is continued with --resume)'}\n`,
  );
  return 0;
}
