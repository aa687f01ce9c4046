import { describe, expect, it } from 'vitest';
import { listModels } from '../llm/index.ts';
import { runCli } from './run-cli.ts';

/** The table's rows by model id, each split into its columns. */
function rowsOf(stdout: string): Map<string, string[]> {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  return new Map(lines.map((l) => l.split(/ {2,}/)).map((cells) => [cells[0]!, cells]));
}

describe('hyperagents models', () => {
  it('prints a table of every model: provider, limits, prices, tool support and notes', async () => {
    const { code, stdout, stderr } = await runCli('hyperagents', ['models']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const rows = rowsOf(stdout);
    expect(rows.get('MODEL')).toEqual([
      'MODEL',
      'PROVIDER',
      'CONTEXT',
      'MAX OUT',
      '$/M IN/OUT',
      'TOOLS',
      'NOTES',
    ]);
    for (const m of listModels()) expect(rows.has(m.id), m.id).toBe(true);
    expect(rows.get('openai/gpt-4o')).toEqual([
      'openai/gpt-4o',
      'openai',
      '128,000',
      '16,384',
      '2.50/10.00',
      'native',
      'successor: openai/gpt-4.1',
    ]);
    expect(rows.get('anthropic/claude-3-haiku')).toEqual([
      'anthropic/claude-3-haiku',
      'anthropic',
      '200,000',
      '4,096',
      '0.25/1.25',
      'native',
      'successor: anthropic/claude-haiku-4-5',
    ]);
    expect(rows.get('openai/o3')?.at(-1)).toBe('reasoning, successor: openai/gpt-5.2');
    expect(rows.get('openai/gpt-5.2')?.at(-1)).toBe('reasoning');
    expect(rows.get('sim')).toEqual([
      'sim',
      'sim',
      '200,000',
      '32,000',
      'free',
      'native',
      'simulated (offline, no key needed)',
    ]);
  });

  it('explains local/<name>: any OpenAI-compatible server, tools through the text protocol', async () => {
    const { stdout } = await runCli('hyperagents', ['models']);
    const local = rowsOf(stdout).get('local/<name>');
    expect(local?.slice(0, 6)).toEqual(['local/<name>', 'local', '32,768', '8,192', 'free', 'text']);
    expect(local?.[6]).toMatch(/OpenAI-compatible server \(ollama, llama\.cpp, vLLM\): --base-url or \w+/);
    expect(stdout).toMatch(/Prices are \$ per million tokens/);
  });

  it('prints every registry field with --json', async () => {
    const { code, stdout } = await runCli('hyperagents', ['models', '--json']);
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as Record<string, unknown>[];
    expect(printed).toEqual(JSON.parse(JSON.stringify(listModels())));
    const haiku = printed.find((m) => m.id === 'anthropic/claude-3-haiku');
    expect(haiku).toEqual({
      id: 'anthropic/claude-3-haiku',
      provider: 'anthropic',
      api: 'anthropic-messages',
      contextWindow: 200_000,
      maxOutput: 4096,
      price: { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
      nativeTools: true,
      temperature: true,
      reasoning: false,
      simulated: false,
      maxTokensField: 'max_tokens',
      systemRole: 'system',
      caching: 'explicit',
      successor: 'anthropic/claude-haiku-4-5',
      apiName: 'claude-3-haiku-20240307',
    });
    expect(printed.find((m) => m.id === 'openai/o3')).toMatchObject({
      temperature: false,
      maxTokensField: 'max_completion_tokens',
      systemRole: 'developer',
      reasoningEfforts: ['low', 'medium', 'high'],
    });
  });
});
