import { main as generateLoop } from '../generate-loop.ts';
import { HARNESS_VERSION } from '../harness/run/index.ts';
import { closeMatches } from '../llm/close-matches.ts';
import { DEFAULT_LOCAL_BASE_URL, PROVIDER_ENV } from '../llm/providers/index.ts';
import { MODELS, type ModelRecord, resolveModel } from '../llm/registry.ts';
import { archiveCommand } from './archive.ts';
import { chat } from './chat.ts';
import { domains } from './domains.ts';
import { reportError } from './errors.ts';
import { evalCommand } from './eval.ts';
import { experimentCommand } from './experiment.ts';
import { queueCommand } from './queue.ts';
import { reportCommand } from './report.ts';
import { serveCommand } from './serve.ts';
import { UsageError } from './usage-error.ts';
import { workerCommand } from './worker.ts';

/** Every command, for suggestions on a typo. */
const COMMANDS = [
  'generate-loop',
  'chat',
  'eval',
  'domains',
  'models',
  'archive',
  'serve',
  'report',
  'experiment',
  'worker',
  'queue',
];

const HELP = `hyperagents <command> [options]

Commands:
  generate-loop ...        evolve agent variants (same as the generate-loop
                           command; --help for its options)
  eval RUN:VARIANT --domains d [--split test]
                           evaluate one stored variant into its run's archive
  chat --model ID ...      send one prompt to a model (checks keys and
                           endpoints)
  domains [--json]         list the benchmark domains (folders under domains/)
  domains test REF         check a domain, a dataset:FILE or an exercism:DIR
  models [--json]          the models you can pass to --model: limits, prices,
                           tool support
  archive list|show|diff|lineage|best|tasks|export ...
                           browse run archives (--json everywhere)
  serve [--port N] [--runs DIR]
                           the archive browser on http://127.0.0.1
  report RUN [RUN ...] -o FILE
                           the browser's pages as one self-contained HTML file
  experiment [--seeds 1-8] [--config NAME=OPTS ...] -- OPTS
                           configurations x seeds, compared
  experiment report DIR    the comparison of an experiment's finished runs
  worker --queue redis://HOST:PORT
                           take tasks and MetaAgent runs from a coordinator
                           (generate-loop --queue)
  queue status --queue redis://...
                           jobs waiting, active and failed, and the workers

Options:
  --help, -h               this help; "hyperagents <command> --help" for a
                           command's options
  --version                the version of hyperagents-ts
`;

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

const MODELS_HELP = `hyperagents models [--json]

Lists the models you can pass to --model, with their context window, output
limit, prices and tool support.
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
      case 'archive':
        return await archiveCommand(rest);
      case 'serve':
        return await serveCommand(rest);
      case 'report':
        return await reportCommand(rest);
      case 'eval':
        return await evalCommand(rest);
      case 'experiment':
        return await experimentCommand(rest);
      case 'worker':
        return await workerCommand(rest);
      case 'queue':
        return await queueCommand(rest);
      case 'domains':
        return await domains(rest);
      case 'models': {
        const { json, help } = listingOptions('models', rest);
        if (help) process.stdout.write(`${MODELS_HELP}\n`);
        else models(json);
        return 0;
      }
      case '--version':
        process.stdout.write(`${HARNESS_VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`${HELP}\n`);
        return command === undefined ? 2 : 0;
      default: {
        const near = closeMatches(command, COMMANDS);
        throw new UsageError(
          `Unknown command "${command}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
            `Commands: ${COMMANDS.join(', ')}. Run hyperagents --help.`,
        );
      }
    }
  } catch (error) {
    return reportError(error, 'hyperagents');
  }
}
