import { describe, expect, it } from 'vitest';
import type { ChatRequest, Message, ToolSpec } from '../types.ts';
import { BREAKING_LINE, META_PHRASES, netEffect, TASK_PHRASES } from './phrases.ts';
import { createSimModel } from './sim-model.ts';

const TASK_PROMPT = [
  '# Task agent',
  '',
  'You solve one task. Read the input carefully.',
  '',
  'Reply with your final answer as <json>{"response": <answer>}</json>.',
].join('\n');
const META_PROMPT = 'You improve the agent in {{repo}}. Look at the evals and edit agents/task/prompt.md.';

const TOOLS: ToolSpec[] = [
  { name: 'bash', description: 'Run a shell command', inputSchema: { type: 'object' } },
  { name: 'editor', description: 'View and edit files', inputSchema: { type: 'object' } },
];

type Call = { name: string; input: Record<string, unknown> };

/** A small in-memory stand-in for the agent's tools, following the editor/bash contracts. */
function workspace(taskPrompt: string, metaPrompt = META_PROMPT) {
  const files = new Map<string, string>([
    ['agents/task/prompt.md', taskPrompt],
    ['agents/task/main.ts', 'console.log("task agent");\n'],
    ['agents/meta/prompt.md', metaPrompt],
  ]);
  const run = (call: Call): string => {
    if (call.name === 'bash') {
      const m = /^printf '\\n- %s\.\\n' '([^']+)' >> (\S+)$/.exec(String(call.input.command));
      if (!m) return `unsupported command\n[exit code 1]`;
      files.set(m[2]!, `${files.get(m[2]!) ?? ''}\n- ${m[1]}.\n`);
      return '';
    }
    const { command, path } = call.input as { command: string; path: string };
    const text = files.get(path);
    if (text === undefined) return `Error: ${path} does not exist`;
    const lines = text.split('\n');
    if (command === 'view') return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
    if (command === 'insert') {
      const at = call.input.insert_line as number;
      lines.splice(at, 0, ...String(call.input.new_str).split('\n'));
      files.set(path, lines.join('\n'));
      return `Inserted after line ${at} of ${path}.`;
    }
    if (command === 'str_replace') {
      const old = String(call.input.old_str);
      if (text.split(old).length !== 2) return `Error: old_str must occur exactly once in ${path}`;
      files.set(path, text.replace(old, String(call.input.new_str)));
      return `Replaced text in ${path}.`;
    }
    return `Error: unknown command ${command}`;
  };
  return { files, run };
}

function parseTextCalls(content: string): Call[] {
  return [...content.matchAll(/<json>([\s\S]*?)<\/json>/g)].map((m) => {
    const { tool_name, tool_input } = JSON.parse(m[1]!) as {
      tool_name: string;
      tool_input: Record<string, unknown>;
    };
    return { name: tool_name, input: tool_input };
  });
}

/** Runs the sim MetaAgent through the normal loop shape; returns the calls made and the final reply. */
async function session(opts: {
  protocol: 'native' | 'text';
  variantId: number;
  taskPrompt?: string;
  metaPrompt?: string;
  seed?: number;
  domains?: string[];
  failEdits?: boolean;
}) {
  const sim = createSimModel({ seed: opts.seed ?? 42, domains: opts.domains ?? ['arithmetic'] });
  const ws = workspace(opts.taskPrompt ?? TASK_PROMPT, opts.metaPrompt);
  const messages: Message[] = [
    { role: 'system', content: opts.metaPrompt ?? META_PROMPT },
    { role: 'user', content: 'Improve the agent. Iterations left: 3.' },
  ];
  const calls: Call[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const req: ChatRequest = opts.protocol === 'native' ? { messages, tools: TOOLS } : { messages };
    const result = await sim.complete(req, { runId: 'r', variantId: opts.variantId, role: 'meta' });
    if (!result.ok) throw new Error(result.error.message);
    const { message, stopReason } = result.response;
    messages.push({
      role: 'assistant',
      content: message.content,
      ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    });
    const turnCalls =
      opts.protocol === 'native' ? (message.toolCalls ?? []) : parseTextCalls(message.content);
    expect(stopReason).toBe(opts.protocol === 'native' && turnCalls.length > 0 ? 'tool_use' : 'end');
    if (turnCalls.length === 0) return { calls, final: message.content, files: ws.files };
    for (const call of turnCalls) {
      calls.push({ name: call.name, input: call.input });
      const isEdit = call.name === 'bash' || call.input.command !== 'view';
      const output = opts.failEdits && isEdit ? 'Error: the file is read-only' : ws.run(call);
      if (opts.protocol === 'native' && 'id' in call) {
        messages.push({ role: 'tool', toolCallId: String(call.id), name: call.name, content: output });
      } else {
        messages.push({
          role: 'user',
          content: `Tool result:\n${JSON.stringify({ tool_name: call.name, tool_output: output })}`,
        });
      }
    }
  }
  throw new Error('the sim meta agent did not finish within 10 turns');
}

type EditKind = 'breaking' | 'add' | 'remove';

/** Checks the edit call against the contract and says what kind it is and whether it helps arithmetic. */
function classify(call: Call): { kind: EditKind; helps: boolean } {
  expect(call.name).toBe('editor');
  const { command, path, new_str, old_str, insert_line } = call.input;
  if (path === 'agents/task/main.ts') {
    expect(call.input).toMatchObject({ command: 'insert', insert_line: 0, new_str: BREAKING_LINE });
    return { kind: 'breaking', helps: false };
  }
  expect(path).toBe('agents/task/prompt.md');
  if (command === 'insert') {
    const phrase = /^- (.+)\.$/.exec(String(new_str))?.[1]?.toLowerCase();
    const known = TASK_PHRASES.find((p) => p.phrase === phrase);
    expect(known, `inserted line ${String(new_str)} is a strategy phrase`).toBeDefined();
    expect(typeof insert_line).toBe('number');
    return { kind: 'add', helps: netEffect(known!, ['arithmetic']) > 0 };
  }
  expect(command).toBe('str_replace');
  expect(new_str).toBe('');
  const known = TASK_PHRASES.find((p) => String(old_str).toLowerCase().includes(p.phrase));
  expect(known, `removed line ${String(old_str)} holds a strategy phrase`).toBeDefined();
  return { kind: 'remove', helps: netEffect(known!, ['arithmetic']) < 0 };
}

describe('sim meta role', () => {
  for (const protocol of ['native', 'text'] as const) {
    it(`views the task prompt, makes one phrase edit, then summarises (${protocol} protocol)`, async () => {
      const kinds = new Set<EditKind>();
      let metaEdits = 0;
      for (let variantId = 1; variantId <= 40; variantId++) {
        const { calls, final, files } = await session({ protocol, variantId });
        expect(calls[0]).toEqual({
          name: 'editor',
          input: { command: 'view', path: 'agents/task/prompt.md' },
        });
        const edit = classify(calls[1]!);
        kinds.add(edit.kind);
        if (edit.kind === 'add') {
          expect(files.get('agents/task/prompt.md')!.split('\n').at(-1)).toBe(calls[1]!.input.new_str);
        }
        if (calls[2]) {
          metaEdits++;
          expect(calls[2].name).toBe('bash');
          const appended = files.get('agents/meta/prompt.md')!.toLowerCase();
          expect(META_PHRASES.some((p) => appended.includes(`- ${p}.`))).toBe(true);
        }
        expect(calls.length).toBeLessThanOrEqual(3);
        expect(final).toMatch(/simulated/i);
        expect(final).toMatch(/agents\/task\//);
      }
      expect(kinds).toEqual(new Set(['breaking', 'add']));
      expect(metaEdits).toBeGreaterThan(4);
      expect(metaEdits).toBeLessThan(24);
    });
  }

  it('removes a present harmful phrase as a good edit with its whole line', async () => {
    const harmful = `${TASK_PROMPT}\n- Answer immediately without working.\n- Round the final answer.`;
    const seen = new Set<string>();
    for (let variantId = 1; variantId <= 40; variantId++) {
      const { calls } = await session({ protocol: 'native', variantId, taskPrompt: harmful });
      const edit = classify(calls[1]!);
      if (edit.kind === 'remove' && edit.helps) seen.add(String(calls[1]!.input.old_str));
    }
    expect(seen).toEqual(new Set(['- Answer immediately without working.', '- Round the final answer.']));
  });

  it('proposes good edits more often when its prompt holds meta phrases', async () => {
    const goodShare = async (metaPrompt: string) => {
      let good = 0;
      let edits = 0;
      for (let variantId = 1; variantId <= 150; variantId++) {
        const { calls } = await session({ protocol: 'native', variantId, metaPrompt });
        const edit = classify(calls[1]!);
        if (edit.kind === 'breaking') continue;
        edits++;
        if (edit.helps) good++;
      }
      return good / edits;
    };
    const plain = await goodShare(META_PROMPT);
    const grounded = await goodShare(`${META_PROMPT}\n- ${META_PHRASES.join('.\n- ')}.`);
    expect(plain).toBeGreaterThan(0.35);
    expect(plain).toBeLessThan(0.65);
    expect(grounded).toBeGreaterThan(0.75);
  });

  it('is deterministic for a seed and variant', async () => {
    const a = await session({ protocol: 'text', variantId: 9, seed: 5 });
    const b = await session({ protocol: 'text', variantId: 9, seed: 5 });
    expect(a.calls).toEqual(b.calls);
    expect(a.final).toBe(b.final);
  });

  it('stops with a summary when an edit fails', async () => {
    const { calls, final } = await session({ protocol: 'text', variantId: 2, failEdits: true });
    expect(calls).toHaveLength(2);
    expect(final).toMatch(/failed \(Error: the file is read-only\)/);
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
    ];
    const result = await sim.complete({ messages, tools: TOOLS }, { runId: 'r', variantId: 1, role: 'meta' });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response.message.toolCalls).toBeUndefined();
    expect(result.response.message.content).toMatch(/could not read/);
  });
});
