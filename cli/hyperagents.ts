import { listDomainNames, loadDomain } from '../domains/discover.ts';
import { main as generateLoop } from '../generate-loop.ts';
import { closeMatches, MODELS } from '../llm/registry.ts';
import { chat } from './chat.ts';
import { reportError } from './errors.ts';
import { UsageError } from './usage-error.ts';

const HELP = `hyperagents <command> [options]

Commands:
  generate-loop ...   evolve agent variants (same as the generate-loop command; --help for options)
  chat --model ID ... send one prompt to a model (checks keys and endpoints; --help for options)
  domains [--json]    list the benchmark domains (folders under domains/)
  models [--json]     list the models you can pass to --model

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

function models(json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(MODELS)}\n`);
    return;
  }
  for (const m of MODELS) {
    const note = m.simulated
      ? 'offline simulated model, no key needed'
      : `${m.provider}, context ${m.contextWindow}`;
    process.stdout.write(`${m.id.padEnd(32)} ${note}\n`);
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const json = rest.includes('--json');
  try {
    switch (command) {
      case 'generate-loop':
        return await generateLoop(rest);
      case 'chat':
        return await chat(rest);
      case 'domains':
        await domains(json);
        return 0;
      case 'models':
        models(json);
        return 0;
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
