import { SETTINGS, type Setting, SHORTHANDS } from '../../harness/run/index.ts';
import { shorthandHelp } from './setting-options.ts';

/** Text in a table cell: its pipes escaped, on one line. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

function resultCell(setting: Setting): string {
  if (setting.result === 'keyed') return 'yes (keyed by itself)';
  if (setting.result === 'none') return '';
  return `yes: \`${setting.result.task}\``;
}

/**
 * docs/options.md, made from the table of settings: every option of generate-loop that sets the run's
 * configuration, its default, whether a resumed run may change it, and whether it changes a task's result
 * (a field of TaskSettings, sent with every task and keyed by the result cache). `npm run docs:options`
 * writes it; a test fails when the file and the table disagree.
 */
export function settingsMarkdown(): string {
  const rows = (SETTINGS as readonly Setting[]).map((s) => {
    const def = s.default === undefined ? '' : `\`${String(s.default)}\``;
    const resume = s.resume === 'may-change' ? 'yes' : '';
    return `| \`--${s.option}\` | ${def} | ${cell(s.describe)} | ${resume} | ${resultCell(s)} |`;
  });
  const shorthands = Object.entries(SHORTHANDS).map(
    ([name, s]) =>
      `- \`--${name}\` sets ${s.sets.map((o) => `\`--${o}\``).join(' and ')}: ${shorthandHelp(name)}.`,
  );
  return [
    '# The run settings',
    '',
    '<!-- Made from harness/run/settings*.ts by `npm run docs:options`; edit the table there, not this file. -->',
    '',
    "Every option of `generate-loop` that sets a run's configuration. The configuration is stored with the",
    'run; `--resume` keeps it, except the settings marked as ones a resume may change. A setting that',
    "changes a task's result is a field of the task settings: sent whole with every task to the TaskAgent",
    '(and to queue workers), and part of the result cache key, so a result made under other settings is',
    'never reused. `generate-loop --help` shows the same options with the rest of the command.',
    '',
    ...shorthands,
    '',
    "| Option | Default | What it sets | A resume may change it | Changes a task's result |",
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
