import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { extractJsons } from '../core/json-extract.ts';
import { type FakeGateway, startFakeGateway } from '../testing/fake-gateway.ts';
import { runNode } from '../testing/run-node.ts';

const main = 'agents/task/main.ts';
const strategyPhrases = [
  'think step by step',
  'write down every intermediate quantity',
  'double-check the arithmetic',
  're-read the question before answering',
  'answer immediately without working',
  'keep the answer brief',
  'round the final answer',
];

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('TaskAgent worker', () => {
  it('loads and exits 0 with --check', async () => {
    const run = await runNode(main, ['--check']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
  });

  it('answers each request line with exactly one response line', async () => {
    gateway = await startFakeGateway({
      answer: (request) => {
        const user = request.messages[1]?.content ?? '';
        if (user.includes('"fail"')) {
          return {
            status: 429,
            error: { type: 'rate_limit', message: 'too many requests', retryable: true },
          };
        }
        const a = /"a": (\d+)/.exec(user)?.[1];
        const b = /"b": (\d+)/.exec(user)?.[1];
        return { content: `The sum is <json>{"response": ${Number(a) + Number(b)}}</json>` };
      },
    });
    const lines = [
      { id: 't1', domain: 'arithmetic', input: { a: 2, b: 3 } },
      { id: 't2', domain: 'arithmetic', input: { a: 10, b: 5 }, formatHint: 'Answer with a number.' },
      { id: 't3', domain: 'arithmetic', input: 'fail' },
    ].map((r) => JSON.stringify(r));
    const stdin = `${lines[0]}\nnot json at all\n${lines[1]}\n{"id": "t4", "input": 1}\n\n${lines[2]}\n`;
    const run = await runNode(main, [], { env: gateway.env, stdin });
    expect(run.code).toBe(0);
    const responses = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(responses.map((r) => r.id)).toEqual(['t1', '', 't2', 't4', 't3']);
    expect(extractJsons(String(responses[0]?.output))).toEqual([{ response: 5 }]);
    expect(extractJsons(String(responses[2]?.output))).toEqual([{ response: 15 }]);
    expect(responses[1]).toMatchObject({ output: '', error: expect.stringContaining('not valid JSON') });
    expect(responses[3]).toMatchObject({ output: '', error: expect.stringContaining('domain') });
    expect(responses[4]).toEqual({ id: 't3', output: '', error: 'rate_limit: too many requests' });

    const prompt = await readFile(new URL('./prompt.md', import.meta.url), 'utf8');
    const first = gateway.requests[0];
    expect(first?.messages[0]).toEqual({ role: 'system', content: prompt });
    expect(first?.messages[1]).toEqual({
      role: 'user',
      content: 'Domain: arithmetic\n\nTask input:\n```json\n{\n  "a": 2,\n  "b": 3\n}\n```',
    });
    expect(gateway.requests[1]?.messages[1]?.content.endsWith('```\n\nAnswer with a number.')).toBe(true);
    expect(first?.tools).toBeUndefined();
  });

  it('answers with an error line when the gateway is not configured', async () => {
    const run = await runNode(main, [], {
      env: { HYPERAGENTS_LLM_URL: '', HYPERAGENTS_LLM_TOKEN: '' },
      stdin: '{"id": "x", "domain": "d", "input": 1}\n',
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: 'x',
      output: '',
      error: expect.stringContaining('HYPERAGENTS_LLM_URL'),
    });
  });
});

describe('task prompt', () => {
  it('has the answer format instruction and no strategy phrase', async () => {
    const prompt = (await readFile(new URL('./prompt.md', import.meta.url), 'utf8'))
      .toLowerCase()
      .replace(/\s+/g, ' ');
    expect(prompt).toContain('<json>');
    expect(prompt).toContain('"response"');
    for (const phrase of strategyPhrases) expect(prompt).not.toContain(phrase);
  });
});
