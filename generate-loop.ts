import { execFileSync } from 'node:child_process';
import { reportError } from './cli/errors.ts';
import { type LoopConfig, loopHelp, parseLoopArgs } from './cli/loop-args.ts';
import { createProgress } from './cli/progress.ts';
import { renderSummary } from './cli/summary-table.ts';
import { UsageError } from './cli/usage-error.ts';
import { assertWritableDir } from './cli/writable.ts';
import { listDomainNames } from './domains/discover.ts';
import { gatewayFactory } from './harness/gateway-wiring.ts';
import { defaultRunId, loadDomainTasks, runExists, runLoop } from './harness/run.ts';
import { resolveSandbox } from './harness/sandbox.ts';
import { resolveModel } from './llm/registry.ts';
import { loadSimScript } from './llm/sim/script.ts';

const SIM_BANNER =
  'Model: sim (SIMULATED). The offline simulated model answers every call: the loop, git lineage and\n' +
  'archive are real; the scores show how selection works, not how good a real model is.';

function checkModel(id: string): string | null {
  const resolved = resolveModel(id);
  return resolved.ok ? null : `${resolved.error.message} List them with: hyperagents models.`;
}

function assertGitInstalled(): void {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new UsageError(
      'git is not installed: every agent variant is a git commit. Install git and run again.',
    );
  }
}

/** Validates everything that can be checked before the run folder is written. */
async function prepare(argv: string[]) {
  const config = await parseLoopArgs(argv, { domains: listDomainNames(), checkModel, defaultModel: 'sim' });
  if (config === 'help') return 'help' as const;
  assertWritableDir(config.out, '--out');
  assertGitInstalled();
  const runId = config.runId ?? defaultRunId();
  if (runExists(config.out, runId)) {
    throw new UsageError(`A run named "${runId}" already exists in ${config.out}. Choose another --run-id.`);
  }
  const sandbox = resolveSandbox(config.sandbox);
  if (sandbox.kind === 'missing') {
    throw new UsageError(
      '--sandbox bwrap was asked for, but bubblewrap does not work here. Install it (Debian/Ubuntu: ' +
        'apt-get install bubblewrap) or pass --sandbox auto or none.',
    );
  }
  const simulated = [config.metaModel, config.taskModel].every((id) => id === 'sim');
  if (sandbox.kind === 'none' && !simulated && config.sandbox !== 'none') {
    throw new UsageError(
      `Agents would run real models without a sandbox (${sandbox.why}). Install bubblewrap, or pass ` +
        '--sandbox none to accept running agent-written code unsandboxed.',
    );
  }
  let script: ReturnType<typeof loadSimScript> | undefined;
  if (config.simScript !== null) {
    try {
      script = loadSimScript(config.simScript);
    } catch (error) {
      throw new UsageError(`--sim-script: ${(error as Error).message}`);
    }
  }
  const domains = await loadDomainTasks(config);
  return { config, runId, sandbox, simulated, script, domains };
}

export async function main(argv: string[]): Promise<number> {
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare(argv);
  } catch (error) {
    return reportError(error, 'generate-loop');
  }
  if (prepared === 'help') {
    process.stdout.write(`${await loopHelp()}\n`);
    return 0;
  }
  const { config, runId, sandbox, simulated, script, domains } = prepared;
  const display = createProgress(process.stderr, config.quiet);
  const progress = display.line;
  if (simulated && !config.quiet) process.stderr.write(`${SIM_BANNER}\n`);
  progress(
    sandbox.kind === 'bwrap'
      ? 'Sandbox: bubblewrap (agents see only their worktree, no network but the gateway, no keys).'
      : `Sandbox: none (${sandbox.why}); agent processes run unsandboxed.`,
  );
  progress(describe(config, runId));
  try {
    const summary = await runLoop(config, runId, {
      domains,
      sandbox,
      simulated,
      cacheable: script === undefined,
      startGateway: gatewayFactory({ seed: config.seed, domains, script, budgetUsd: config.budgetUsd }),
      progress,
      status: display.status,
    });
    display.done();
    process.stdout.write(config.json ? `${JSON.stringify(summary)}\n` : `${renderSummary(summary)}\n`);
    return 0;
  } catch (error) {
    return reportError(error, 'generate-loop');
  }
}

function describe(config: LoopConfig, runId: string): string {
  return (
    `Run ${runId}: ${config.generations} generation(s) on ${config.domains.join(', ')}, ` +
    `parent selection ${config.parentSelection}, seed ${config.seed}, output ${config.out}/${runId}`
  );
}
