import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { loadArithmetic } from '../domains/arithmetic/index.ts';
import { agentCommand, agentEnv } from '../harness/agent-processes.ts';
import type { ResolvedSandbox } from '../harness/sandbox.ts';
import { createTaskPool } from '../harness/task-workers.ts';
import { startGateway } from '../llm/gateway.ts';
import { createSimModel } from '../llm/sim/sim-model.ts';

export interface WorkerResult {
  workers: number;
  tasks: number;
  seconds: number;
}

/**
 * Wall time to evaluate one split with N TaskAgent worker processes (real processes, real gateway on a
 * unix socket, the sim with a fixed per-call latency standing in for a remote model).
 */
export async function benchEvalWorkers(
  workerCounts: number[],
  modelLatencyMs: number,
  sandbox: ResolvedSandbox = { kind: 'none', why: 'benchmark' },
): Promise<WorkerResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-eval-'));
  const tasks = loadArithmetic('train');
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'], latencyMs: modelLatencyMs });
  sim.registerTasks('arithmetic', tasks);
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gw.sock'),
    providers: () => sim,
    onCall: () => {},
  });
  const worktree = path.resolve(import.meta.dirname, '..');
  const results: WorkerResult[] = [];
  try {
    for (const workers of workerCounts) {
      const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
      const command = agentCommand(
        sandbox,
        { workdir: worktree, writable: false, readOnly: [], gatewaySocket: gateway.socketPath },
        'agents/task/main.ts',
        [],
        agentEnv({ url: gateway.url, token }),
      );
      const pool = createTaskPool({
        size: workers,
        command,
        taskTimeoutMs: 60_000,
        logFile: path.join(dir, 'workers.log'),
      });
      const limit = pLimit(workers);
      const started = performance.now();
      await Promise.all(
        tasks.map((t) => limit(() => pool.run({ id: t.id, domain: 'arithmetic', input: t.input }))),
      );
      results.push({ workers, tasks: tasks.length, seconds: (performance.now() - started) / 1000 });
      await pool.close();
    }
  } finally {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
