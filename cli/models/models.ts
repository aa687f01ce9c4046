import { listModels, type ModelRecord, registeredProviders } from '../../llm/index.ts';
import { UsageError } from '../shared/usage-error.ts';

const MODELS_HELP = `hyperagents models [--json]

Lists the models you can pass to --model, with their context window, output
limit, prices and tool support.
  --json   one JSON array on stdout: every field of every model record`;

/** The registry as a table (or, with --json, every record with every field). Pure. */
export function modelsListing(json: boolean): string {
  const models = listModels();
  if (json) return `${JSON.stringify(models)}\n`;
  const price = (n: number) =>
    n === 0 ? '0' : n.toFixed(Math.max(2, (String(n).split('.')[1] ?? '').length));
  const row = (m: ModelRecord, notes: string[]) => [
    m.id,
    m.provider,
    m.contextWindow.toLocaleString('en-US'),
    m.maxOutput.toLocaleString('en-US'),
    m.price.input === 0 && m.price.output === 0 ? 'free' : `${price(m.price.input)}/${price(m.price.output)}`,
    m.nativeTools ? 'native' : 'text',
    notes.join(', '),
  ];
  // A provider that serves any model name shows one row: the record its defaults make.
  const anyModelRows = registeredProviders().flatMap((p) => {
    if (p.anyModel === undefined) return [];
    const where = [
      `--base-url or ${p.baseUrlVariable}`,
      ...(p.defaultBaseUrl ? [`default ${p.defaultBaseUrl}`] : []),
    ];
    const record = { ...p.anyModel.record('<name>', {}), id: `${p.name}/<name>` };
    return [row(record, [`any model on ${p.anyModel.server}: ${where.join(', ')}`])];
  });
  const rows = [
    ['MODEL', 'PROVIDER', 'CONTEXT', 'MAX OUT', '$/M IN/OUT', 'TOOLS', 'NOTES'],
    ...models.map((m) =>
      row(m, [
        ...(m.simulated ? ['simulated (offline, no key needed)'] : []),
        ...(m.reasoning ? ['reasoning'] : []),
        ...(m.successor ? [`successor: ${m.successor}`] : []),
      ]),
    ),
    ...anyModelRows,
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)));
  return (
    rows.map((r) => `${line(r).join('  ').trimEnd()}\n`).join('') +
    '\nPrices are $ per million tokens. Tools "text": the agents describe tools in the prompt and read <json> ' +
    'blocks back.\n'
  );
}

/**
 * The options of a command that takes only `--json` and `--help`: anything else is refused, so a mistyped
 * word is not silently ignored.
 */
function listingOptions(command: string, rest: string[]): { json: boolean; help: boolean } {
  const extra = rest.filter((word) => !['--json', '--help', '-h'].includes(word));
  if (extra.length > 0) {
    throw new UsageError(
      `${command} takes no ${extra[0]!.startsWith('-') ? 'option' : 'word'} "${extra[0]}". ` +
        `Run hyperagents ${command} --help for what it takes.`,
    );
  }
  return { json: rest.includes('--json'), help: rest.includes('--help') || rest.includes('-h') };
}

/** `hyperagents models`: the models you can pass to --model. */
export async function modelsCommand(argv: string[]): Promise<number> {
  const { json, help } = listingOptions('models', argv);
  if (help) process.stdout.write(`${MODELS_HELP}\n`);
  else process.stdout.write(modelsListing(json));
  return 0;
}
