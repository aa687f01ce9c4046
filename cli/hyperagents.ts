import { listDomainNames, loadDomain } from '../domains/discover.ts';
import { main as generateLoop } from '../generate-loop.ts';
import { closeMatches } from '../llm/close-matches.ts';
import { DEFAULT_LOCAL_BASE_URL, PROVIDER_ENV } from '../llm/providers/index.ts';
import { MODELS, type ModelRecord, resolveModel } from '../llm/registry.ts';
import { chat } from './chat.ts';
import { reportError } from './errors.ts';
import { UsageError } from './usage-error.ts';

const HELP = `hyperagents <command> [options]

Commands:
  generate-loop ...   evolve agent variants (same as the generate-loop command; --help for options)
  chat --model ID ... send one prompt to a model (checks keys and endpoints; --help for options)
  domains [--json]    list the benchmark domains (folders under domains/)
  models [--json]     list the models you can pass to --model: limits, prices, tool support

Run "hyperagents <command> --help" for a command's options.`;

async function domains(json: boolean): Promise<void> {
  const rows = [];
  for (const name of listDomainNames()) {
    const d = await loadDomain(name);
    rows.push({ name: d.name, description: d.description, splits: d.splits, stagedSamples: d.stagedSamples });
  }
  if (json) process.stdout.write(`${JSON.stringify(rows)}\n`);
  else
    for (const r of rows)
      process.stdout.write(`${r.name.padEnd(14)} ${r.description} (splits: ${r.splits.join(', ')})\n`);
}

/** The registry as a table (or, with --json, every record with every field). */
function models(json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(MODELS)}\n`);
    return;
  }
  const local = resolveModel('local/<name>');
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
  const rows = [
    ['MODEL', 'PROVIDER', 'CONTEXT', 'MAX OUT', '$/M IN/OUT', 'TOOLS', 'NOTES'],
    ...MODELS.map((m) =>
      row(m, [
        ...(m.simulated ? ['simulated (offline, no key needed)'] : []),
        ...(m.reasoning ? ['reasoning'] : []),
        ...(m.successor ? [`successor: ${m.successor}`] : []),
      ]),
    ),
    ...(local.ok
      ? [
          row(local.model, [
            `any model on an OpenAI-compatible server (ollama, llama.cpp, vLLM): --base-url or ${PROVIDER_ENV.local.baseUrl}, default ${DEFAULT_LOCAL_BASE_URL}`,
          ]),
        ]
      : []),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)));
  for (const r of rows) process.stdout.write(`${line(r).join('  ').trimEnd()}\n`);
  process.stdout.write(
    '\nPrices are $ per million tokens. Tools "text": the agents describe tools in the prompt and read <json> ' +
      'blocks back.\n',
  );
}

const DOMAINS_HELP = `hyperagents domains [--json]

Lists the benchmark domains: every folder under domains/ with an index.ts, with its description and splits.
  --json   one JSON array on stdout: name, description, splits, stagedSamples of each domain`;

const MODELS_HELP = `hyperagents models [--json]

Lists the models you can pass to --model, with their context window, output limit, prices and tool support.
  --json   one JSON array on stdout: every field of every model record`;

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

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'generate-loop':
        return await generateLoop(rest);
      case 'chat':
        return await chat(rest);
      case 'domains': {
        const { json, help } = listingOptions('domains', rest);
        if (help) process.stdout.write(`${DOMAINS_HELP}\n`);
        else await domains(json);
        return 0;
      }
      case 'models': {
        const { json, help } = listingOptions('models', rest);
        if (help) process.stdout.write(`${MODELS_HELP}\n`);
        else models(json);
        return 0;
      }
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`${HELP}\n`);
        return command === undefined ? 2 : 0;
      default: {
        const near = closeMatches(command, ['generate-loop', 'chat', 'domains', 'models']);
        throw new UsageError(
          `Unknown command "${command}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
            'Commands: generate-loop, chat, domains, models. Run hyperagents --help.',
        );
      }
    }
  } catch (error) {
    return reportError(error, 'hyperagents');
  }
}
