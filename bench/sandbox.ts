import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveSandbox, wrapCommand } from '../harness/process/index.ts';
import { benchEvalWorkers, type WorkerResult } from './eval-workers.ts';

function runOnce(command: { file: string; args: string[]; env: Record<string, string> }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, { env: command.env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exited ${code}`))));
  });
}

/**
 * Start-up cost of one agent process: `true` run bare, with the limits only (`--sandbox none`: prlimit and
 * cgroups), and in bubblewrap; interleaved round by round so all three see the same load.
 */
async function startupCost(rounds: number): Promise<string[]> {
  const workdir = mkdtempSync(path.join(tmpdir(), 'bench-sandbox-'));
  const policy = { workdir, writable: false, readOnly: [] };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const kinds: [string, { file: string; args: string[]; env: Record<string, string> }][] = [
    ['bare process', { file: 'true', args: [], env }],
    ['limits only (--sandbox none)', wrapCommand({ kind: 'none', why: 'bench' }, policy, 'true', [], env)],
  ];
  const bwrap = resolveSandbox('bwrap');
  if (bwrap.kind === 'bwrap')
    kinds.push(['bubblewrap + limits', wrapCommand(bwrap, policy, 'true', [], env)]);
  const totals = kinds.map(() => 0);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, [, command]] of kinds.entries()) {
        const started = performance.now();
        await runOnce(command);
        totals[i]! += performance.now() - started;
      }
    }
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
  const base = totals[0]! / rounds;
  return [
    `Start-up cost per agent process (\`true\`, ${rounds} rounds, interleaved)`,
    ...kinds.map(([name], i) => {
      const each = totals[i]! / rounds;
      return `  ${name.padEnd(30)} ${each.toFixed(2).padStart(7)} ms  +${(each - base).toFixed(2)} ms over bare`;
    }),
    ...(bwrap.kind === 'bwrap' ? [] : ['  (bubblewrap is not available here: not measured)']),
  ];
}

/** Start-up cost per process, and evaluation throughput with and without bubblewrap, side by side. */
export async function benchSandbox(): Promise<string[]> {
  const lines = await startupCost(30);
  const bwrap = resolveSandbox('bwrap');
  if (bwrap.kind !== 'bwrap') return [...lines, 'Evaluation throughput: bubblewrap is not available here'];
  const latencyMs = 200;
  const plainRun = await benchEvalWorkers([4], latencyMs, 40);
  const boxedRun = await benchEvalWorkers([4], latencyMs, 40, bwrap);
  const plain = plainRun.results.find((r) => r.entry === 'built');
  const boxed = boxedRun.results.find((r) => r.entry === 'built');
  if (plain === undefined || boxed === undefined) return lines;
  const rate = (r: WorkerResult): string =>
    `${r.seconds.toFixed(2).padStart(6)} s  ${(r.tasks / r.seconds).toFixed(1).padStart(5)} tasks/s`;
  return [
    ...lines,
    '',
    `Evaluation of ${plain.tasks} arithmetic tasks, 4 TaskAgent workers, model latency ${latencyMs} ms per call`,
    `  --sandbox none   ${rate(plain)}`,
    `  --sandbox bwrap  ${rate(boxed)}  ${(plain.seconds / boxed.seconds).toFixed(2)}x the unsandboxed speed`,
  ];
}
