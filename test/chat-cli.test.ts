import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatResponseSchema, costUsd } from '../llm/index.ts';
import * as anthropic from '../llm/testing/fake-anthropic.ts';
import * as google from '../llm/testing/fake-google.ts';
import * as openai from '../llm/testing/fake-openai.ts';
import { type FakeServer, type FakeStep, startFakeServer } from '../llm/testing/fake-server.ts';
import { registeredModel } from '../llm/testing/models.ts';
import { type CliResult, PROJECT_ROOT, runCli } from './run-cli.ts';

/**
 * `hyperagents chat` as a user runs it, against fake servers that speak each provider's wire format through
 * the official SDKs: replies after transient faults, no retry on a bad key or an over-long prompt, the
 * adapted parameters on the wire, and usage and cost per provider.
 */

interface Provider {
  name: string;
  /** Environment pointing the SDK at the fake server, with a key. */
  env(url: string): Record<string, string>;
  keyVariable: string;
  /** A model with no adaptation surprises, for the fault tests. */
  model: string;
  reply(text: string): FakeStep;
  transient: FakeStep[];
  auth: FakeStep;
  overflow: FakeStep;
}

/** Keys and base URLs the developer's environment might hold must not leak into these runs. */
const CLEAN: Record<string, string> = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  GEMINI_API_KEY: '',
  GOOGLE_API_KEY: '',
  OPENAI_BASE_URL: '',
  ANTHROPIC_BASE_URL: '',
  GOOGLE_GEMINI_BASE_URL: '',
};

const PROVIDERS: Provider[] = [
  {
    name: 'OpenAI',
    env: (url) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1` }),
    keyVariable: 'OPENAI_API_KEY',
    model: 'openai/gpt-4o-mini',
    reply: (text) => openai.textReply(text),
    transient: [
      openai.errorReply('rate_limit', { retryAfterSeconds: 0 }),
      openai.errorReply('server_error'),
      openai.errorReply('overloaded'),
    ],
    auth: openai.errorReply('auth'),
    overflow: openai.errorReply('context_overflow'),
  },
  {
    name: 'Anthropic',
    env: (url) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: url }),
    keyVariable: 'ANTHROPIC_API_KEY',
    model: 'anthropic/claude-haiku-4-5',
    reply: (text) => anthropic.streamedTextReply(text),
    transient: [
      anthropic.errorReply('rate_limit', { retryAfterSeconds: 0 }),
      anthropic.errorReply('server'),
      anthropic.errorReply('overloaded'),
    ],
    auth: anthropic.errorReply('auth'),
    overflow: anthropic.errorReply('context_overflow'),
  },
  {
    name: 'Google',
    env: (url) => ({ GEMINI_API_KEY: 'gm-test', GOOGLE_GEMINI_BASE_URL: url }),
    keyVariable: 'GEMINI_API_KEY',
    model: 'google/gemini-2.5-flash',
    reply: (text) => google.textReply(text),
    transient: [
      google.errorReply('rate_limit', { retryDelaySeconds: 0 }),
      google.errorReply('internal'),
      google.errorReply('overloaded'),
    ],
    auth: google.errorReply('invalid_key'),
    overflow: google.errorReply('context_overflow'),
  },
];

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

function chat(args: string[], env: Record<string, string>) {
  return runCli('hyperagents', ['chat', ...args], { ...CLEAN, ...env });
}

function body(index = 0): Record<string, unknown> {
  return server.requests[index]?.body as Record<string, unknown>;
}

describe.each(PROVIDERS)('hyperagents chat against a fake $name server', (p) => {
  it('rides out a rate limit, a server error and an overload, then prints the reply', async () => {
    server.enqueue(...p.transient, p.reply('Hello from the fake server.'));
    const result = await chat(['--model', p.model, 'Say hello'], p.env(server.url));
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('Hello from the fake server.');
    expect(server.requests).toHaveLength(4);
    expect(result.stderr.match(/retrying in/g)).toHaveLength(3);
  });

  it('does not retry a refused key: exit 1 and a message naming the variable', async () => {
    server.enqueue(p.auth, p.reply('never sent'));
    const result = await chat(['--model', p.model, 'Say hello'], p.env(server.url));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad or missing API key');
    expect(result.stderr).toContain(p.keyVariable);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a prompt over the context window: exit 1, "context too long"', async () => {
    server.enqueue(p.overflow, p.reply('never sent'));
    const result = await chat(['--model', p.model, 'A very long prompt'], p.env(server.url));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('context too long');
    expect(server.requests).toHaveLength(1);
  });

  it('exits 2 with the variable to set when there is no key, before any request', async () => {
    const result = await chat(['--model', p.model, 'Say hello'], { [p.keyVariable]: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`set ${p.keyVariable}`);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a call that could cost more than --budget-usd, before any request', async () => {
    const result = await chat(
      ['--model', p.model, '--budget-usd', '0.000001', 'Say hello'],
      p.env(server.url),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/budget/i);
    expect(server.requests).toHaveLength(0);
  });
});

function parsedResponse(stdout: string) {
  return ChatResponseSchema.parse(JSON.parse(stdout));
}

function priced(id: string, usage: Parameters<typeof costUsd>[1]): number {
  return costUsd(registeredModel(id), usage);
}

describe('hyperagents chat: adapted parameters, usage and cost per provider', () => {
  it('OpenAI o3: no temperature, max_completion_tokens, a developer message; cached tokens priced apart', async () => {
    server.enqueue(
      openai.textReply('4', { usage: { prompt: 1000, completion: 300, cached: 400, reasoning: 200 } }),
    );
    const result = await chat(
      [
        '--model',
        'openai/o3',
        '--system',
        'Be brief.',
        '--temperature',
        '0.2',
        '--max-tokens',
        '500',
        '--json',
        '2+2?',
      ],
      PROVIDERS[0]!.env(server.url),
    );
    expect(result.code).toBe(0);
    const sent = body();
    expect(sent.model).toBe('o3');
    expect(sent).not.toHaveProperty('temperature');
    expect(sent).not.toHaveProperty('max_tokens');
    expect(sent.max_completion_tokens).toBe(500);
    expect(sent.messages).toEqual([
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: '2+2?' },
    ]);
    const response = parsedResponse(result.stdout);
    const usage = { input: 600, output: 300, cacheRead: 400, cacheWrite: 0, reasoning: 200 };
    expect(response.usage).toEqual(usage);
    expect(response.costUsd).toBeCloseTo(priced('openai/o3', usage), 12);
    expect(response.costUsd).toBeGreaterThan(0);
    expect(response.adapted).toContain('temperature dropped: openai/o3 does not accept it');
  });

  it('Anthropic claude-3-haiku: max_tokens clamped to 4096, top-level system, cache reads and writes apart from input', async () => {
    server.enqueue(
      anthropic.streamedTextReply('Hi.', {
        input_tokens: 50,
        output_tokens: 7,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 300,
      }),
    );
    const result = await chat(
      [
        '--model',
        'anthropic/claude-3-haiku',
        '--system',
        'Be brief.',
        '--max-tokens',
        '10000',
        '--json',
        'Hi',
      ],
      PROVIDERS[1]!.env(server.url),
    );
    expect(result.code).toBe(0);
    const sent = body();
    expect(sent.model).toBe('claude-3-haiku-20240307');
    expect(sent.max_tokens).toBe(4096);
    expect(sent.stream).toBe(true);
    expect(JSON.stringify(sent.system)).toContain('Be brief.');
    expect(JSON.stringify(sent.messages)).not.toContain('Be brief.');
    const response = parsedResponse(result.stdout);
    const usage = { input: 50, output: 7, cacheRead: 2000, cacheWrite: 300, reasoning: 0 };
    expect(response.usage).toEqual(usage);
    expect(response.costUsd).toBeCloseTo(priced('anthropic/claude-3-haiku', usage), 12);
    expect(response.adapted?.join('\n')).toMatch(/maxTokens clamped from 10000 to 4096/);
  });

  it('Google gemini-2.5-flash: system instruction, temperature and output cap in the config; cached and thought tokens', async () => {
    server.enqueue(google.textReply('Hi.', { prompt: 900, candidates: 40, cached: 500, thoughts: 60 }));
    const result = await chat(
      [
        '--model',
        'google/gemini-2.5-flash',
        '--system',
        'Be brief.',
        '--temperature',
        '0.3',
        '--max-tokens',
        '200',
        '--json',
        'Hi',
      ],
      PROVIDERS[2]!.env(server.url),
    );
    expect(result.code).toBe(0);
    expect(server.requests[0]?.path).toMatch(/\/models\/gemini-2\.5-flash:generateContent/);
    const sent = JSON.stringify(body());
    expect(sent).toContain('"temperature":0.3');
    expect(sent).toContain('"maxOutputTokens":200');
    expect(sent).toMatch(/"systemInstruction":\{[^}]*"parts":\[\{"text":"Be brief\."\}\]/);
    const response = parsedResponse(result.stdout);
    const usage = { input: 400, output: 100, cacheRead: 500, cacheWrite: 0, reasoning: 60 };
    expect(response.usage).toEqual(usage);
    expect(response.costUsd).toBeCloseTo(priced('google/gemini-2.5-flash', usage), 12);
  });

  it('a local OpenAI-compatible server by --base-url needs no key and costs nothing', async () => {
    server.enqueue(openai.textReply('local hello', { usage: { prompt: 20, completion: 3 } }));
    const result = await chat(
      ['--model', 'local/qwen2.5-coder', '--base-url', `${server.url}/v1`, '--json', 'Hi'],
      {},
    );
    expect(result.code).toBe(0);
    expect(body().model).toBe('qwen2.5-coder');
    const response = parsedResponse(result.stdout);
    expect(response.message.content).toBe('local hello');
    expect(response.costUsd).toBe(0);
  });

  it('reads the key and base URL from a .env file in the current folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'chat-dotenv-'));
    try {
      await writeFile(
        path.join(dir, '.env'),
        `# keys for hyperagents\nOPENAI_API_KEY=sk-from-dotenv\nOPENAI_BASE_URL=${server.url}/v1\n`,
      );
      server.enqueue(openai.textReply('configured by .env'));
      const result = await runCli('hyperagents', ['chat', '--model', 'openai/gpt-4o-mini', 'Hi'], CLEAN, dir);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe('configured by .env');
      expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-dotenv');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names an unreachable server and exits 1', async () => {
    const closed = await startFakeServer();
    const url = closed.url;
    await closed.close();
    const result = await chat(
      ['--model', 'local/llama3', '--base-url', `${url}/v1`, '--retry-seconds', '0', 'Hi'],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('provider unreachable');
    expect(result.stderr).toContain(url);
  });

  it.each([
    [
      ['--timeout-seconds', '1e9'],
      '--timeout-seconds must be above 0 and at most 2147483 (about 24 days: the longest a timer can wait), not 1000000000.',
    ],
    [['--timeout-seconds', '0'], '--timeout-seconds must be above 0 and at most 2147483'],
    [['--retry-seconds', '-5'], '--retry-seconds must be 0 (no retries) or more, not -5.'],
    [['--retry-seconds', ''], '--retry-seconds was given an empty value: give a number.'],
  ])('exits 2 on %j, a wait no timer can honour, before any request', async (flags, message) => {
    const result = await chat(['--model', 'sim', ...flags, 'Hi'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('exits 2 on an unknown model, naming a close match', async () => {
    const result = await chat(['--model', 'openai/gpt-4-o', 'Hi'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('openai/gpt-4o');
  });
});

/**
 * `hyperagents chat` with its stdin fed `input`, and its stdout either read or closed at once by the reader
 * (as `| head -c 0` does): the output a user would see on the terminal's stderr, and the exit code.
 */
function chatThroughPipes(
  args: string[],
  opts: { input?: string; closeStdout?: boolean },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'chat', ...args],
      {
        cwd: tmpdir(),
        env: { ...process.env, ...CLEAN },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    if (opts.closeStdout) child.stdout.destroy();
    else child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('hyperagents chat with bad settings and closed pipes', () => {
  it.each([
    ['local/llama3', 'HYPERAGENTS_LOCAL_BASE_URL', {}],
    ['openai/gpt-4o-mini', 'OPENAI_BASE_URL', { OPENAI_API_KEY: 'sk-test' }],
  ])(
    '%s: a base URL variable that is not a URL is refused at once, naming it',
    async (model, variable, env) => {
      const result = await chat(['--model', model, 'Hi'], { ...env, [variable]: 'garbage' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${variable} (from the environment or .env) must be an http(s) URL`);
      expect(result.stderr).toContain('"garbage"');
      expect(result.stderr).not.toMatch(/retrying/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    },
  );

  it('generate-loop refuses the same variable before it makes a run folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'chat-base-url-'));
    try {
      const out = path.join(dir, 'runs');
      const result = await runCli(
        'generate-loop',
        ['--domains', 'arithmetic', '--model', 'local/llama3', '--out', out],
        { HYPERAGENTS_LOCAL_BASE_URL: 'garbage' },
        dir,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'HYPERAGENTS_LOCAL_BASE_URL (from the environment or .env) must be an http(s) URL',
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
      await expect(rm(out)).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a 3 MB prompt piped in gets the context message and no stack trace', async () => {
    const result = await chatThroughPipes(['--model', 'sim'], { input: 'word '.repeat(600_000) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^hyperagents chat: context too long: the request is about \d+ tokens/);
    expect(result.stderr).not.toMatch(/EPIPE|^\s+at /m);
  });

  it.each([[['--json']], [[]]])(
    'a reader that closes its end early (chat %j | head -c 0) ends it quietly',
    async (flags) => {
      const result = await chatThroughPipes(['--model', 'sim', ...flags, 'say hi'], { closeStdout: true });
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/EPIPE|^\s+at /m);
    },
  );
});
