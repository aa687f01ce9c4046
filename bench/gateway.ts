import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGatewayModel } from '../agents/index.ts';
import { archiveFile, openArchive } from '../archive/index.ts';
import type { CallContext, ChatRequest } from '../llm/index.ts';
import { createSimModel, startGateway, withRetries } from '../llm/index.ts';

/** The p-th percentile (0-100) of sorted values, nearest rank. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (value: number): string => `${value.toFixed(3).padStart(7)} ms`;

/**
 * What the gateway adds to each model call: the same zero-latency sim request made directly on the provider
 * and through the gateway (unix socket, token check, JSON both ways, a ledger row in SQLite) with the
 * agents' own client, alternately, so both see the same machine load. Returns report lines.
 */
export async function benchGateway(calls = 2000, warmUp = 200): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-gateway-'));
  const archive = openArchive(archiveFile(dir));
  const task = {
    id: 'bench-1',
    input: { question: 'Ann has 3 apples and buys 4 more. How many?' },
    answer: 7,
  };
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'] });
  sim.registerTasks('arithmetic', [task]);
  const provider = withRetries(sim);
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gateway.sock'),
    providers: () => provider,
    onWarning: (message) => process.stderr.write(`gateway: ${message}\n`),
    onCall: (row) => archive.insertLlmCall(row),
  });
  const ctx: CallContext = { runId: 'bench', variantId: 0, role: 'task' };
  const token = gateway.issueToken({ ...ctx, model: 'sim' });
  const client = createGatewayModel({ url: gateway.url, token });
  const request: ChatRequest = {
    messages: [
      { role: 'system', content: 'Reply with your final answer as <json>{"response": <answer>}</json>.' },
      {
        role: 'user',
        content: `Domain: arithmetic\n\nTask input:\n\`\`\`json\n${JSON.stringify(task.input)}\n\`\`\``,
      },
    ],
  };
  const direct: number[] = [];
  const through: number[] = [];
  try {
    for (let i = 0; i < warmUp + calls; i++) {
      let started = performance.now();
      const a = await provider.complete(request, ctx);
      const directMs = performance.now() - started;
      started = performance.now();
      const b = await client(request);
      const throughMs = performance.now() - started;
      if (!a.ok || !b.ok) throw new Error('a benchmark call failed');
      if (i < warmUp) continue;
      direct.push(directMs);
      through.push(throughMs);
    }
  } finally {
    await gateway.close();
    archive.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const added = through.map((t, i) => t - direct[i]!).sort((x, y) => x - y);
  direct.sort((x, y) => x - y);
  through.sort((x, y) => x - y);
  const row = (label: string, values: number[]) =>
    `  ${label.padEnd(26)} p50 ${ms(percentile(values, 50))}   p99 ${ms(percentile(values, 99))}`;
  return [
    `LLM gateway overhead: ${calls} zero-latency sim calls each way, after ${warmUp} warm-up calls`,
    row('directly on the provider', direct),
    row('through the gateway', through),
    row('added by the gateway', added),
  ];
}
