import { describe, expect, it } from 'vitest';
import type { Message } from '../types.ts';
import { meanPCorrect, phrasesIn } from './landscape.ts';
import { FORMAT_LINE } from './meta-plan.ts';
import { BREAKING_LINE, META_PHRASES, STALL_PHRASE, TASK_PHRASES } from './phrases.ts';
import { createSimModel } from './sim-model.ts';
import { type Call, META_TOOLS, metaSession, workspace } from './testing/meta-session.ts';

const TASK_PROMPT = [
  '# Task agent',
  '',
  'You solve one task. Read the input carefully.',
  '',
  'Reply with your final answer as <json>{"response": <answer>}</json>.',
].join('\n');
const EVALS = '/evals/variant-1';
const META_PROMPT = `You improve the agent in /wt. Evaluation results are in ${EVALS} (read only).`;
const SUMMARY = `## variant 0 (initial agent)\n- arithmetic: 14/40 correct, 24 wrong, 2 unparseable, 0 errors\n`;

async function session(opts: {
  protocol?: 'native' | 'text';
  variantId: number;
  taskPrompt?: string;
  metaPrompt?: string;
  summary?: string;
  seed?: number;
  failEdits?: string;
}) {
  const sim = createSimModel({ seed: opts.seed ?? 42, domains: ['arithmetic'] });
  const metaPrompt = opts.metaPrompt ?? META_PROMPT;
  const files = workspace({
    'agents/task/prompt.md': opts.taskPrompt ?? TASK_PROMPT,
    'agents/task/main.ts': 'console.log("task agent");\n',
    'agents/meta/prompt.md': metaPrompt,
    ...(opts.summary === undefined ? {} : { [`${EVALS}/summary.md`]: opts.summary }),
  });
  const result = await metaSession({
    sim,
    files,
    system: metaPrompt,
    variantId: opts.variantId,
    protocol: opts.protocol ?? 'native',
    ...(opts.failEdits === undefined ? {} : { failEdits: opts.failEdits }),
  });
  return { ...result, files: files.files };
}

type EditKind = 'breaking' | 'damage' | 'add' | 'remove' | 'meta' | 'stall';

/** Checks an edit call against the contract and says what kind it is. */
function classify(call: Call): EditKind {
  if (call.name === 'bash') {
    const line = /'([^']+)' >> agents\/meta\/prompt\.md$/
      .exec(String(call.input.command))?.[1]
      ?.toLowerCase();
    expect(line, `bash call ${String(call.input.command)} appends to the meta prompt`).toBeDefined();
    if (line === STALL_PHRASE) return 'stall';
    expect(META_PHRASES.map((p) => p.phrase)).toContain(line);
    return 'meta';
  }
  expect(call.name).toBe('editor');
  const { command, path, new_str, old_str } = call.input;
  if (path === 'agents/task/main.ts') {
    expect(call.input).toMatchObject({ command: 'insert', insert_line: 0, new_str: BREAKING_LINE });
    return 'breaking';
  }
  if (path === 'agents/meta/prompt.md') return 'meta';
  expect(path).toBe('agents/task/prompt.md');
  if (command === 'insert') {
    const phrase = /^- (.+)\.$/.exec(String(new_str))?.[1]?.toLowerCase();
    expect(
      TASK_PHRASES.map((p) => p.phrase),
      `inserted line ${String(new_str)}`,
    ).toContain(phrase);
    return 'add';
  }
  expect(command).toBe('str_replace');
  expect(new_str).toBe('');
  if (String(old_str).includes('<json>')) return 'damage';
  expect(TASK_PHRASES.some((p) => String(old_str).toLowerCase().includes(p.phrase))).toBe(true);
  return 'remove';
}

const TRAIN_GAIN = (before: string, after: string) =>
  meanPCorrect(phrasesIn(after), ['arithmetic'], [1], 'train') -
  meanPCorrect(phrasesIn(before), ['arithmetic'], [1], 'train');

describe('sim meta role', () => {
  for (const protocol of ['native', 'text'] as const) {
    it(`views the task prompt, reads the evals summary, edits, then summarises (${protocol} protocol)`, async () => {
      const kinds = new Set<EditKind>();
      for (let variantId = 1; variantId <= 40; variantId++) {
        const { calls, final, files } = await session({ protocol, variantId, summary: SUMMARY });
        expect(calls[0]).toEqual({
          name: 'editor',
          input: { command: 'view', path: 'agents/task/prompt.md' },
        });
        expect(calls[1]).toEqual({ name: 'bash', input: { command: `cat ${EVALS}/summary.md` } });
        for (const call of calls.slice(2)) kinds.add(classify(call));
        expect(calls.length).toBeLessThanOrEqual(6);
        expect(final).toMatch(/simulated/i);
        expect(final).toMatch(/14|targeted the failures of arithmetic/);
        if (calls.slice(2).some((c) => classify(c) === 'add')) {
          expect(files.get('agents/task/prompt.md')).not.toBe(TASK_PROMPT);
        }
      }
      expect(kinds).toContain('add');
      expect(kinds).toContain('breaking');
      expect(kinds).toContain('meta');
    });
  }

  it('without an evals folder in its prompt it skips the read and says it guessed', async () => {
    const { calls, final } = await session({ variantId: 3, metaPrompt: 'You improve the agent in /wt.' });
    expect(calls[0]!.input.command).toBe('view');
    expect(calls.some((c) => String(c.input.command).startsWith('cat '))).toBe(false);
    expect(final).toMatch(/no failures to read/);
  });

  it('proposes edits that help on train more often when its prompt holds the good meta phrases', async () => {
    const helpful = async (metaPrompt: string) => {
      let good = 0;
      let edits = 0;
      for (let variantId = 1; variantId <= 120; variantId++) {
        const { calls, files } = await session({ variantId, metaPrompt, summary: SUMMARY });
        if (!calls.slice(2).some((c) => classify(c) === 'add' || classify(c) === 'remove')) continue;
        edits++;
        if (TRAIN_GAIN(TASK_PROMPT, files.get('agents/task/prompt.md')!) > 0) good++;
      }
      return good / edits;
    };
    const good = META_PHRASES.filter((p) => p.quality > 0).map((p) => `- ${p.phrase}.`);
    const plain = await helpful(META_PROMPT);
    const grounded = await helpful(`${META_PROMPT}\n${good.join('\n')}`);
    expect(plain).toBeLessThan(0.85);
    expect(grounded).toBeGreaterThan(plain + 0.1);
  });

  it('removes the answer-format line as a damaging edit, and restores it only after reading unparseable replies', async () => {
    let damaged = 0;
    for (let variantId = 1; variantId <= 200 && damaged === 0; variantId++) {
      const { calls } = await session({ variantId, summary: SUMMARY });
      if (calls.slice(2).some((c) => classify(c) === 'damage')) damaged++;
    }
    expect(damaged).toBe(1);
    const noFormat = TASK_PROMPT.split('\n')
      .filter((l) => !l.includes('<json>'))
      .join('\n');
    const unparseable = `## variant 0\n- arithmetic: 4/40 correct, 8 wrong, 28 unparseable, 0 errors\n`;
    const good = META_PHRASES.filter((p) => p.quality > 0).map((p) => `- ${p.phrase}.`);
    const restored = async (summary: string) => {
      let n = 0;
      for (let variantId = 1; variantId <= 30; variantId++) {
        const { files } = await session({
          variantId,
          taskPrompt: noFormat,
          metaPrompt: `${META_PROMPT}\n${good.join('\n')}`,
          summary,
        });
        if (files.get('agents/task/prompt.md')!.includes(FORMAT_LINE)) n++;
      }
      return n;
    };
    expect(await restored(unparseable)).toBeGreaterThan(10);
    expect(await restored(SUMMARY)).toBe(0);
  });

  it('stalls with the stall phrase in its prompt: mostly no edit at all', async () => {
    let empty = 0;
    for (let variantId = 1; variantId <= 40; variantId++) {
      const { calls } = await session({
        variantId,
        metaPrompt: `${META_PROMPT}\n- ${STALL_PHRASE}.`,
        summary: SUMMARY,
      });
      if (calls.length === 2) empty++;
    }
    expect(empty).toBeGreaterThan(30);
  });

  it('is deterministic for a seed and variant', async () => {
    const a = await session({ protocol: 'text', variantId: 9, seed: 5, summary: SUMMARY });
    const b = await session({ protocol: 'text', variantId: 9, seed: 5, summary: SUMMARY });
    expect(a.calls).toEqual(b.calls);
    expect(a.final).toBe(b.final);
  });

  it('stops with a summary when an edit fails', async () => {
    for (let variantId = 1; variantId <= 10; variantId++) {
      const { calls, final } = await session({
        variantId,
        summary: SUMMARY,
        failEdits: 'Error: the file is read-only',
      });
      if (calls.length < 3) continue;
      expect(calls).toHaveLength(3);
      expect(final).toMatch(/failed \(Error: the file is read-only\)/);
      return;
    }
    throw new Error('no session made an edit');
  });

  it('stops with a summary when the view returned no file', async () => {
    const sim = createSimModel({ seed: 1, domains: ['arithmetic'] });
    const messages: Message[] = [
      { role: 'system', content: META_PROMPT },
      { role: 'user', content: 'Improve the agent.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'a', name: 'editor', input: { command: 'view', path: 'x' } }],
      },
      {
        role: 'tool',
        toolCallId: 'a',
        name: 'editor',
        content: 'Error: agents/task/prompt.md does not exist',
      },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'b', name: 'bash', input: { command: `cat ${EVALS}/summary.md` } }],
      },
      { role: 'tool', toolCallId: 'b', name: 'bash', content: SUMMARY },
    ];
    const result = await sim.complete(
      { messages, tools: META_TOOLS },
      { runId: 'r', variantId: 1, role: 'meta' },
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response.message.toolCalls).toBeUndefined();
    expect(result.response.message.content).toMatch(/could not read/);
  });
});
