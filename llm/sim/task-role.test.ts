import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../types.ts';
import { pCorrect } from './landscape.ts';
import { createSimModel } from './sim-model.ts';
import type { SimTask } from './task-role.ts';

const FORMAT = 'Reply with your final answer as <json>{"response": <answer>}</json>.';
const BASE_PROMPT = `You are a careful problem solver.\n\n${FORMAT}\n`;
const HELPFUL = `${BASE_PROMPT}- Think step by step.\n- Write down every intermediate quantity.\n- Double-check the arithmetic.\n`;

function arithmeticTasks(n: number): SimTask[] {
  return Array.from({ length: n }, (_, i) => {
    const [a, b, c] = [3 + ((i * 7) % 40), 2 + ((i * 11) % 13), 5 + ((i * 5) % 17)];
    return {
      id: `arith-${i}`,
      input: { question: `Ann has ${a} apples, buys ${b} bags of ${c}. How many?` },
      answer: a + b * c,
    };
  });
}

function taskRequest(system: string, domain: string, input: unknown): ChatRequest {
  return {
    messages: [
      { role: 'system', content: system },
      {
        role: 'user',
        content: `Domain: ${domain}\n\nTask input:\n\`\`\`json\n${JSON.stringify(input, null, 2)}\n\`\`\``,
      },
    ],
  };
}

const ctx = { runId: 'run-1', variantId: 3, role: 'task' as const };

async function reply(sim: ReturnType<typeof createSimModel>, req: ChatRequest): Promise<string> {
  const result = await sim.complete(req, ctx);
  if (!result.ok) throw new Error(result.error.message);
  return result.response.message.content;
}

/** The `response` of the last <json> block, or 'parse_failure'. */
function prediction(text: string): unknown {
  const blocks = [...text.matchAll(/<json>([\s\S]*?)<\/json>/g)];
  const last = blocks.at(-1)?.[1];
  return last === undefined ? 'parse_failure' : (JSON.parse(last) as { response: unknown }).response;
}

async function grade(seed: number, system: string, tasks: SimTask[]) {
  const sim = createSimModel({ seed, domains: ['arithmetic'] });
  sim.registerTasks('arithmetic', tasks);
  const outcomes: ('correct' | 'wrong' | 'parse_failure')[] = [];
  for (const task of tasks) {
    const p = prediction(await reply(sim, taskRequest(system, 'arithmetic', task.input)));
    outcomes.push(p === 'parse_failure' ? 'parse_failure' : p === task.answer ? 'correct' : 'wrong');
  }
  const rate = (k: string) => outcomes.filter((o) => o === k).length / tasks.length;
  return { outcomes, correct: rate('correct'), parseFailures: rate('parse_failure') };
}

describe('sim task role', () => {
  const tasks = arithmeticTasks(200);

  it('gives the same reply for the same seed and request, and varies with the seed', async () => {
    const replies = async (seed: number) => {
      const sim = createSimModel({ seed, domains: ['arithmetic'] });
      sim.registerTasks('arithmetic', tasks);
      const out: string[] = [];
      for (const task of tasks.slice(0, 40))
        out.push(await reply(sim, taskRequest(BASE_PROMPT, 'arithmetic', task.input)));
      return out;
    };
    expect(await replies(7)).toEqual(await replies(7));
    expect(await replies(7)).not.toEqual(await replies(8));
  });

  it('answers more tasks correctly with helpful phrases, never losing a task it had right', async () => {
    const base = await grade(11, BASE_PROMPT, tasks);
    const better = await grade(11, HELPFUL, tasks);
    // Thresholds are stratified over the registered tasks, so a score sits within 1/N of P(correct).
    expect(Math.abs(base.correct - pCorrect(BASE_PROMPT, 'arithmetic', 'unknown'))).toBeLessThan(0.02);
    expect(Math.abs(better.correct - pCorrect(HELPFUL, 'arithmetic', 'unknown'))).toBeLessThan(0.02);
    expect(base.correct).toBeGreaterThan(0.25);
    expect(base.correct).toBeLessThan(0.45);
    expect(better.correct).toBeGreaterThan(base.correct + 0.15);
    base.outcomes.forEach((o, i) => {
      if (o === 'correct') expect(better.outcomes[i]).toBe('correct');
    });
  });

  it('scores held-out tasks lower than train tasks with an overfitting strategy', async () => {
    const split = (t: SimTask, i: number): SimTask => ({ ...t, split: i % 2 === 0 ? 'train' : 'val' });
    const both = tasks.map(split);
    const overfit = `${BASE_PROMPT}- Reuse the answer of the most similar example.\n`;
    const { outcomes } = await grade(3, overfit, both);
    const rate = (parity: number) =>
      outcomes.filter((o, i) => i % 2 === parity && o === 'correct').length / (tasks.length / 2);
    expect(rate(0)).toBeGreaterThan(rate(1) + 0.1);
  });

  it('lowers P(correct) with a harmful phrase', async () => {
    const worse = await grade(11, `${BASE_PROMPT}- Answer immediately without working.\n`, tasks);
    expect(worse.correct).toBeLessThan(0.2);
  });

  it('mostly fails to format its answer without the format instruction', async () => {
    const without = await grade(5, 'You are a careful problem solver.', tasks);
    const withFormat = await grade(5, BASE_PROMPT, tasks);
    expect(without.parseFailures).toBeGreaterThan(0.6);
    expect(without.parseFailures).toBeLessThan(0.8);
    expect(withFormat.parseFailures).toBeLessThan(0.08);
  });

  it('formats replies as working then <json>, with reasoning lines when asked to think step by step', async () => {
    const sim = createSimModel({ seed: 1, domains: ['arithmetic'] });
    sim.registerTasks('arithmetic', tasks);
    const plain = await reply(sim, taskRequest(BASE_PROMPT, 'arithmetic', tasks[0]!.input));
    const stepwise = await reply(
      sim,
      taskRequest(`${BASE_PROMPT}Think step  by\nstep.`, 'arithmetic', tasks[0]!.input),
    );
    expect(plain.split('\n')).toHaveLength(2);
    expect(stepwise.split('\n').length).toBeGreaterThanOrEqual(4);
    expect(stepwise).toContain('Step 1:');
  });

  it('gives plausible wrong answers: nearby numbers and other answers of the domain', async () => {
    const { outcomes } = await grade(11, BASE_PROMPT, tasks);
    const sim = createSimModel({ seed: 11, domains: ['arithmetic'] });
    sim.registerTasks('arithmetic', tasks);
    const wrong = tasks.filter((_, i) => outcomes[i] === 'wrong');
    expect(wrong.length).toBeGreaterThan(50);
    for (const task of wrong) {
      const p = prediction(await reply(sim, taskRequest(BASE_PROMPT, 'arithmetic', task.input))) as number;
      expect(p).not.toBe(task.answer);
      expect(Math.abs(p - (task.answer as number))).toBeLessThanOrEqual(5);
    }
    const words: SimTask[] = ['apple', 'pear', 'plum'].map((w, i) => ({
      id: `w${i}`,
      input: { word: `${w}s are fruit` },
      answer: w,
    }));
    const textSim = createSimModel({ seed: 2, domains: ['text'] });
    textSim.registerTasks('text', words);
    for (const task of words) {
      const p = prediction(
        await reply(textSim, taskRequest('Answer briefly. No format here.', 'text', task.input)),
      );
      if (p !== 'parse_failure' && p !== task.answer) expect(['apple', 'pear', 'plum']).toContain(p);
    }
  });

  it('finds the task by its longest string when the input is not sent as JSON', async () => {
    const sim = createSimModel({ seed: 3, domains: ['arithmetic'] });
    sim.registerTasks('arithmetic', tasks);
    const question = (tasks[17]!.input as { question: string }).question;
    const req: ChatRequest = {
      messages: [
        { role: 'system', content: HELPFUL },
        { role: 'user', content: `Solve: ${question}` },
      ],
    };
    expect(prediction(await reply(sim, req))).not.toBe('parse_failure');
  });

  it('answers politely without JSON when it does not know the task', async () => {
    const sim = createSimModel({ seed: 3, domains: ['arithmetic'] });
    sim.registerTasks('arithmetic', tasks);
    const text = await reply(
      sim,
      taskRequest(BASE_PROMPT, 'arithmetic', { question: 'something never registered' }),
    );
    expect(text).not.toContain('<json>');
    expect(text).not.toContain('{');
  });

  it('reports usage as chars/4 and zero cost, or the nominal price when set', async () => {
    const sim = createSimModel({ seed: 3, domains: ['arithmetic'], pricePerMTok: 1_000_000 });
    sim.registerTasks('arithmetic', tasks);
    const req = taskRequest(BASE_PROMPT, 'arithmetic', tasks[0]!.input);
    const result = await sim.complete(req, ctx);
    if (!result.ok) throw new Error(result.error.message);
    const chars = req.messages.reduce((n, m) => n + m.content.length, 0);
    expect(result.response.usage.input).toBe(Math.ceil(chars / 4));
    expect(result.response.usage.output).toBe(Math.ceil(result.response.message.content.length / 4));
    expect(result.response.costUsd).toBe(result.response.usage.input + result.response.usage.output);
    expect(result.response.stopReason).toBe('end');
  });
});

describe('the noisy landscape (--sim-noise)', () => {
  const tasks = arithmeticTasks(60);
  async function answers(seed: number, noise: number, attempt: number): Promise<unknown[]> {
    const sim = createSimModel({ seed, domains: ['arithmetic'], noise });
    sim.registerTasks('arithmetic', tasks);
    const out: unknown[] = [];
    for (const task of tasks) {
      const result = await sim.complete(taskRequest(BASE_PROMPT, 'arithmetic', task.input), {
        ...ctx,
        attempt,
      });
      if (!result.ok) throw new Error(result.error.message);
      out.push(prediction(result.response.message.content));
    }
    return out;
  }

  it('answers the same on every attempt without noise', async () => {
    expect(await answers(4, 0, 1)).toEqual(await answers(4, 0, 0));
  });

  it('draws a task answer per attempt, fixed by the seed and the attempt number', async () => {
    const first = await answers(4, 0.6, 0);
    const second = await answers(4, 0.6, 1);
    expect(await answers(4, 0.6, 1)).toEqual(second);
    const changed = first.filter((a, i) => JSON.stringify(a) !== JSON.stringify(second[i])).length;
    expect(changed).toBeGreaterThan(3);
    expect(await answers(5, 0.6, 1)).not.toEqual(second);
  });

  it("keeps every attempt's expected score at P(correct)", async () => {
    const p = pCorrect(BASE_PROMPT, 'arithmetic');
    const scores: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      const a = await answers(9, 1, attempt);
      scores.push(a.filter((x, i) => x === tasks[i]!.answer).length / tasks.length);
    }
    const mean = scores.reduce((s, x) => s + x, 0) / scores.length;
    expect(Math.abs(mean - p)).toBeLessThan(0.08);
    expect(Math.max(...scores) - Math.min(...scores)).toBeGreaterThan(0.05);
  });
});
