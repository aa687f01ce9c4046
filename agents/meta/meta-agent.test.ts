import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelInfo, ModelRequest } from '../core/messages.ts';
import { type FakeChatAnswer, type FakeGateway, startFakeGateway } from '../testing/fake-gateway.ts';
import { runNode } from '../testing/run-node.ts';
import { chooseProtocol, parseMetaArgs } from './meta-agent.ts';

const main = 'agents/meta/main.ts';
const metaPhrases = [
  'ground every change in the failed train tasks',
  'prefer small edits that can be tested',
  'keep what worked in the lineage',
];

describe('parseMetaArgs', () => {
  it.each([
    [
      ['--repo', 'r', '--evals', 'e', '--iterations-left', '3'],
      { repo: 'r', evals: 'e', iterationsLeft: 3, check: false },
    ],
    [['--check'], { repo: '', evals: '', iterationsLeft: 0, check: true }],
  ])('accepts %j', (argv, args) => {
    expect(parseMetaArgs(argv)).toEqual({ ok: true, args });
  });

  it.each([
    [['--repo', 'r', '--iterations-left', '1'], '--repo and --evals are required'],
    [['--repo', 'r', '--evals', 'e', '--iterations-left', 'two'], 'whole number'],
    [['--repo', 'r', '--evals', 'e'], 'whole number'],
    [['--repo', 'r', '--evals', 'e', '--iterations-left', '1', '--bogus'], 'bogus'],
  ])('rejects %j', (argv, message) => {
    const parsed = parseMetaArgs(argv);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });
});

describe('chooseProtocol', () => {
  const model = (nativeTools: boolean): ModelInfo => ({
    id: 'm',
    nativeTools,
    contextWindow: 1,
    maxOutput: 1,
    simulated: false,
  });
  it.each([
    ['native', [model(false)], 'native'],
    ['text', [model(true)], 'text'],
    [undefined, [model(true)], 'native'],
    [undefined, [model(false)], 'text'],
    [undefined, [], 'text'],
    ['bogus', [model(true)], 'native'],
  ] as const)('forced %s with models %j -> %s', (forced, models, expected) => {
    expect(chooseProtocol(forced, [...models])).toBe(expected);
  });
});

describe('meta prompt', () => {
  it('names its variables and has no meta phrase', async () => {
    const prompt = await readFile(new URL('./prompt.md', import.meta.url), 'utf8');
    for (const name of ['{{repo}}', '{{evals}}', '{{iterationsLeft}}']) expect(prompt).toContain(name);
    const normalized = prompt.toLowerCase().replace(/\s+/g, ' ');
    for (const phrase of metaPhrases) expect(normalized).not.toContain(phrase);
  });
});

describe('MetaAgent process', () => {
  let dir: string;
  let repo: string;
  let evals: string;
  let gateway: FakeGateway | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'meta-agent-'));
    repo = join(dir, 'repo');
    evals = join(dir, 'evals');
    await mkdir(join(repo, 'agents/task'), { recursive: true });
    await mkdir(evals);
    await writeFile(
      join(repo, 'agents/task/prompt.md'),
      'Solve it.\nReply as <json>{"response": 1}</json>.\n',
    );
    await writeFile(join(evals, 'summary.json'), '{"score": 0.3}\n');
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const args = () => ['--repo', repo, '--evals', evals, '--iterations-left', '2'];

  it('edits the repo through the text protocol, writes its transcript and exits 0', async () => {
    const script: FakeChatAnswer[] = [
      {
        content: '<json>{"tool_name": "bash", "tool_input": {"command": "cat ../evals/summary.json"}}</json>',
      },
      {
        content:
          'Adding a hint.\n<json>{"tool_name": "editor", "tool_input": {"command": "str_replace", "path": "agents/task/prompt.md", "old_str": "Solve it.", "new_str": "Solve it carefully."}}</json>',
      },
      { content: 'I made the task prompt ask for care.' },
    ];
    gateway = await startFakeGateway({ answer: (_r, i) => script[i] ?? { content: 'done' } });
    const transcript = join(dir, 'transcript.json');
    const run = await runNode(main, args(), {
      env: { ...gateway.env, HYPERAGENTS_TRANSCRIPT: transcript, HYPERAGENTS_TOOL_PROTOCOL: '' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(await readFile(join(repo, 'agents/task/prompt.md'), 'utf8')).toContain('Solve it carefully.');
    const system = gateway.requests[0]?.messages[0]?.content ?? '';
    expect(system).toContain(`${repo}/agents/AGENTS.md`);
    expect(system).toContain(evals);
    expect(system).toContain('### editor');
    expect(gateway.requests[1]?.messages.at(-1)?.content).toContain('{\\"score\\": 0.3}');
    const saved = JSON.parse(await readFile(transcript, 'utf8')) as {
      status: string;
      toolCalls: number;
      messages: unknown[];
    };
    expect(saved).toMatchObject({ status: 'done', toolCalls: 2 });
    expect(saved.messages).toHaveLength(2 + 2 * 2 + 1);
  });

  it('uses native tool calls when the model supports them', async () => {
    const models: ModelInfo[] = [
      { id: 'native-model', nativeTools: true, contextWindow: 200_000, maxOutput: 8000, simulated: false },
    ];
    const seen: ModelRequest[] = [];
    gateway = await startFakeGateway({
      models,
      answer: (request, i) => {
        seen.push(request);
        return i === 0
          ? {
              content: '',
              toolCalls: [
                {
                  id: 'c1',
                  name: 'editor',
                  input: { command: 'create', path: 'agents/task/notes.md', file_text: 'n\n' },
                },
              ],
            }
          : { content: 'done' };
      },
    });
    const run = await runNode(main, args(), { env: { ...gateway.env, HYPERAGENTS_TOOL_PROTOCOL: '' } });
    expect(run.code).toBe(0);
    expect(await readFile(join(repo, 'agents/task/notes.md'), 'utf8')).toBe('n\n');
    expect(seen[0]?.tools?.map((t) => t.name)).toEqual(['bash', 'editor']);
    expect(seen[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', name: 'editor' });
  });

  it('exits 0 when the model fails during the loop', async () => {
    gateway = await startFakeGateway({
      answer: () => ({
        status: 402,
        error: { type: 'budget_exceeded', message: 'no budget', retryable: false },
      }),
    });
    const run = await runNode(main, args(), { env: gateway.env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no budget');
  });

  it('exits 1 with a clear message on bad arguments', async () => {
    const missing = await runNode(main, ['--repo', repo]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--repo and --evals are required');
    const noDir = await runNode(main, [
      '--repo',
      join(dir, 'nope'),
      '--evals',
      evals,
      '--iterations-left',
      '1',
    ]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toContain('is not a directory');
  });

  it('loads and exits 0 with --check', async () => {
    expect((await runNode(main, ['--check'])).code).toBe(0);
  });
});
