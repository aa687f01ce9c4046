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
    // Requests run at once, so responses come as they finish: matched by id.
    expect(responses.map((r) => r.id).sort()).toEqual(['', 't1', 't2', 't3', 't4']);
    const byId = (id: string) => responses.find((r) => r.id === id);
    expect(extractJsons(String(byId('t1')?.output))).toEqual([{ response: 5 }]);
    expect(extractJsons(String(byId('t2')?.output))).toEqual([{ response: 15 }]);
    expect(byId('')).toMatchObject({ output: '', error: expect.stringContaining('not valid JSON') });
    expect(byId('t4')).toMatchObject({ output: '', error: expect.stringContaining('domain') });
    expect(byId('t3')).toEqual({ id: 't3', output: '', error: 'rate_limit: too many requests' });

    const prompt = await readFile(new URL('./prompt.md', import.meta.url), 'utf8');
    const asked = (text: string) => gateway?.requests.find((r) => r.messages[1]?.content.includes(text));
    const first = asked('"a": 2');
    expect(first?.messages[0]).toEqual({ role: 'system', content: prompt });
    expect(first?.messages[1]).toEqual({
      role: 'user',
      content: 'Domain: arithmetic\n\nTask input:\n```json\n{\n  "a": 2,\n  "b": 3\n}\n```',
    });
    expect(asked('"a": 10')?.messages[1]?.content.endsWith('```\n\nAnswer with a number.')).toBe(true);
    expect(first?.tools).toBeUndefined();
  });

  it("works on the requests it is given at once: the first one's answer can wait on the second", async () => {
    let secondArrived = (): void => undefined;
    const second = new Promise<void>((resolve) => {
      secondArrived = resolve;
    });
    gateway = await startFakeGateway({
      answer: async (request) => {
        // The first task's model call returns only once the second task has called the model too.
        const a = /"a": (\d+)/.exec(request.messages[1]?.content ?? '')?.[1];
        if (a === '1') await second;
        else secondArrived();
        return { content: `<json>{"response": ${a}}</json>` };
      },
    });
    const stdin = ['s1', 's2']
      .map((id, n) => JSON.stringify({ id, domain: 'arithmetic', input: { a: n + 1 } }))
      .join('\n');
    const run = await runNode(main, [], { env: gateway.env, stdin: `${stdin}\n` });
    expect(run.code).toBe(0);
    const responses = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; output: string });
    // Had it waited for the first answer before reading the second request, it would never have answered.
    const answers = Object.fromEntries(responses.map((r) => [r.id, extractJsons(r.output)]));
    expect(answers).toEqual({ s1: [{ response: 1 }], s2: [{ response: 2 }] });
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
