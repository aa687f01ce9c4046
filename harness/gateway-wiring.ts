import path from 'node:path';
import type { LlmCallInput } from '../archive/archive.ts';
import { startGateway } from '../llm/gateway.ts';
import type { ModelProvider } from '../llm/provider.ts';
import type { ParsedSimScript } from '../llm/sim/script.ts';
import { createSimModel, type SimModel } from '../llm/sim/sim-model.ts';
import type { DomainTasks } from './evaluate.ts';
import type { RunDeps } from './run.ts';

/**
 * The gateway factory for a run: the simulated model, told every task and its gold answer (they stay in
 * this process), and providers for real models once they are registered.
 */
export function gatewayFactory(opts: {
  seed: number;
  domains: readonly DomainTasks[];
  script: ParsedSimScript | undefined;
  budgetUsd: number | null;
}): RunDeps['startGateway'] {
  return async (runDir: string, onCall: (row: LlmCallInput) => void) => {
    const sim: SimModel = createSimModel({
      seed: opts.seed,
      domains: opts.domains.map((d) => d.domain.name),
      ...(opts.script === undefined ? {} : { script: opts.script }),
    });
    for (const { domain, splits } of opts.domains) {
      sim.registerTasks(domain.name, [
        ...(splits.train ?? []),
        ...(splits.val ?? []),
        ...(splits.test ?? []),
      ]);
    }
    const providers = (id: string): ModelProvider | undefined => (id === 'sim' ? sim : undefined);
    const gateway = await startGateway({
      socketPath: path.join(runDir, 'gateway.sock'),
      providers,
      onCall,
      ...(opts.budgetUsd === null ? {} : { budgetUsd: opts.budgetUsd }),
    });
    return gateway;
  };
}
