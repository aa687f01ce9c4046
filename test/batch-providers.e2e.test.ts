import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { textReply as anthropicText, streamedTextReply } from '../llm/testing/fake-anthropic.ts';
import { startFakeAnthropicBatchServer } from '../llm/testing/fake-anthropic-batch.ts';
import { textReply as openaiText } from '../llm/testing/fake-openai.ts';
import { type FakeOpenAIBatchServer, startFakeOpenAIBatchServer } from '../llm/testing/fake-openai-batch.ts';
import type { FakeStep } from '../llm/testing/fake-server.ts';
import { readArchive, startCli } from './kill-points.ts';
import { until } from './processes.ts';

/**
 * `--batch` against fake OpenAI and Anthropic servers that speak the batch endpoints' wire formats: the
 * whole path a user's overnight run takes (the gateway, the SDK, the files, the polls), only the model faked.
 */
const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-batch-wire-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RUN = [
  ...['--domains', 'arithmetic', '--generations', '0', '--seed', '3', '--eval-samples', '6'],
  ...['--eval-workers', '2', '--sandbox', 'none', '--batch-poll', '1', '--json'],
];

/** The last user message of a request, whatever the wire. */
function lastUser(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/** A model that answers each question with a number of its own (right on some tasks, wrong on others). */
const answerOf = (body: unknown): string => `<json>{"response": ${lastUser(body).length % 7}}</json>`;

interface Outcome {
  results: unknown[];
  calls: { batch: number; cost_usd: number }[];
}

function outcome(runDir: string): Outcome {
  const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
  try {
    return {
      results: db.prepare('SELECT task_id, score, prediction FROM task_results ORDER BY task_id').all(),
      calls: db
        .prepare("SELECT batch, cost_usd FROM llm_calls WHERE role = 'task' ORDER BY id")
        .all() as Outcome['calls'],
    };
  } finally {
    db.close();
  }
}

const spend = (o: Outcome): number => o.calls.reduce((s, c) => s + c.cost_usd, 0);

async function finished(args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  const done = await startCli([...RUN, ...args], env).done;
  expect(done.code, done.stderr).toBe(0);
  return outcome((JSON.parse(done.stdout) as RunSummary).runDir);
}

describe('generate-loop --batch through OpenAI’s Batch API (fake server)', () => {
  const model = ['--model', 'openai/gpt-4o-mini'];
  let server: FakeOpenAIBatchServer;
  let env: NodeJS.ProcessEnv;
  let plain: Outcome;
  beforeAll(async () => {
    server = await startFakeOpenAIBatchServer({
      respond: (body) => openaiText(answerOf(body), { usage: { prompt: 900, completion: 40 } }),
    });
    env = { OPENAI_API_KEY: 'sk-test-batch-0000', OPENAI_BASE_URL: `${server.url}/v1` };
    plain = await finished([...model, '--out', path.join(tmp, 'openai-plain')], env);
  }, 600_000);
  afterAll(async () => {
    await server?.close();
  });

  it('gives the same per-task results as ordinary calls, every evaluation request in one batch, at half the cost', async () => {
    expect(server.batches.batches).toHaveLength(0);
    const batched = await finished([...model, '--batch', '--out', path.join(tmp, 'openai-batch')], env);
    expect(batched.results).toEqual(plain.results);
    expect(batched.calls).toHaveLength(plain.calls.length);
    expect(batched.calls.every((c) => c.batch === 1)).toBe(true);
    expect(spend(batched)).toBeCloseTo(spend(plain) / 2, 10);
    expect(server.batches.requestsPerBatch).toEqual([plain.calls.length]);
  }, 600_000);

  it('answers by ordinary calls what an expired batch left undone, and the run finishes with the same results', async () => {
    server.set({ expire: { answered: 4 } });
    const expired = await finished([...model, '--batch', '--out', path.join(tmp, 'openai-expired')], env);
    expect(expired.results).toEqual(plain.results);
    expect(server.batches.batches.at(-1)?.ending).toBe('expired');
    // The four answered inside the batch at its price, the rest as ordinary calls at the listed one.
    expect(expired.calls.filter((c) => c.batch === 1)).toHaveLength(4);
    expect(expired.calls.filter((c) => c.batch === 0)).toHaveLength(plain.calls.length - 4);
  }, 600_000);
});

describe('generate-loop --batch through Anthropic’s Message Batches (fake server)', () => {
  const respond = (body: unknown): FakeStep => {
    const usage = { input_tokens: 900, output_tokens: 40 };
    return (body as { stream?: boolean }).stream === true
      ? streamedTextReply(answerOf(body), usage)
      : anthropicText(answerOf(body), usage);
  };

  it('killed while its batch is pending and resumed, collects that batch: no second batch, each request charged once', async () => {
    const server = await startFakeAnthropicBatchServer({ respond, endAfterPolls: Number.POSITIVE_INFINITY });
    try {
      const env = { ANTHROPIC_API_KEY: 'sk-ant-test-batch-0000', ANTHROPIC_BASE_URL: server.url };
      const model = ['--model', 'anthropic/claude-haiku-4-5'];
      const plain = await finished([...model, '--out', path.join(tmp, 'anthropic-plain')], env);
      const runDir = path.join(tmp, 'anthropic-killed', 'run');
      const first = startCli(
        [...RUN, ...model, '--batch', '--out', path.join(tmp, 'anthropic-killed'), '--run-id', 'run'],
        env,
      );
      // Polled once by the provider's word: submitted, and known to be pending.
      await until('a batch the provider holds', () =>
        readArchive(
          runDir,
          (db) =>
            db
              .prepare(
                "SELECT 1 FROM batches WHERE provider_batch_id IS NOT NULL AND provider_state = 'in_progress'",
              )
              .get() ?? null,
        ),
      );
      first.child.kill('SIGKILL');
      await first.done;
      expect(server.batches.batches).toHaveLength(1);
      server.set({ endAfterPolls: 1 });
      const resumed = await startCli(['--resume', runDir, '--json'], env).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = outcome(runDir);
      expect(server.batches.batches).toHaveLength(1);
      expect(after.results).toEqual(plain.results);
      expect(after.calls).toHaveLength(plain.calls.length);
      expect(after.calls.every((c) => c.batch === 1)).toBe(true);
      expect(spend(after)).toBeCloseTo(spend(plain) / 2, 10);
    } finally {
      await server.close();
    }
  }, 600_000);
});
