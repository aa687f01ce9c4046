import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION_KEY } from '../../queue/index.ts';
import { freePort, startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { PROJECT_ROOT, runCli } from '../run-cli.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const simLoop = (...extra: string[]) =>
  runCli('generate-loop', ['--domains', 'arithmetic', '--model', 'sim', ...extra]);

/** A clear paragraph, exit code 2, no stack trace. */
function refused(result: { code: number | null; stderr: string }, words: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(words);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('scale-out refuses bad input with a message', () => {
  it.each([
    [['worker', '--queue', 'localhost:6379'], 'not a redis:// URL'],
    [['worker'], 'needs --queue redis://HOST:PORT'],
    [['worker', '--queue', 'redis://127.0.0.1:6379', '--concurrency', '0'], '--concurrency must be'],
    [['worker', '--queue', 'redis://127.0.0.1:6379', '--sandbox', 'docker'], '--sandbox must be one of'],
    [['queue', 'status', '--queue', 'redis://127.0.0.1:6379/x'], 'database must be a number'],
    [['queue', 'stats', '--queue', 'redis://127.0.0.1:6379'], 'takes one word, "status"'],
  ])('hyperagents %j', async (args, words) => {
    refused(await runCli('hyperagents', args), words);
  });

  it('says when Redis cannot be reached', async () => {
    const port = await freePort();
    refused(
      await runCli('hyperagents', ['worker', '--queue', `redis://127.0.0.1:${port}`]),
      `Cannot reach Redis at redis://127.0.0.1:${port}/0`,
    );
    refused(await simLoop('--queue', `redis://127.0.0.1:${port}`), 'Cannot reach Redis');
  });

  it("refuses a workspace cap over what a worker sends back of a workspace task's files", async () => {
    const exercises = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism', 'python');
    const polyglot = (...extra: string[]) =>
      runCli('generate-loop', ['--domains', `exercism:${exercises}`, '--model', 'sim', ...extra]);
    refused(
      await polyglot('--queue', redis.url, '--workspace-max-kb', '20000'),
      'Lower --workspace-max-kb to 16384 or less, or run without --queue',
    );
    // A run without workspace tasks has no workspace to send back.
    const plain = await simLoop('--queue', redis.url, '--workspace-max-kb', '20000', '--estimate');
    expect(plain.code, plain.stderr).toBe(0);
  });

  it('refuses --remote-generations without a queue to send the MetaAgent runs to', async () => {
    refused(await simLoop('--remote-generations'), 'add --queue redis://HOST:PORT');
  });

  it('refuses a gateway address the coordinator cannot listen on', async () => {
    refused(
      await simLoop('--queue', redis.url, '--gateway-listen', `127.0.0.1:${redis.port}`),
      `port ${redis.port} is in use`,
    );
  });

  it('refuses a worker of another version than the coordinator', async () => {
    const client = new Redis({ host: '127.0.0.1', port: redis.port });
    try {
      await client.set(VERSION_KEY, '0.0.0-other');
      const result = await runCli('hyperagents', ['worker', '--queue', redis.url, '--sandbox', 'none']);
      refused(result, 'the coordinator using this Redis runs 0.0.0-other');
    } finally {
      await client.del(VERSION_KEY);
      client.disconnect();
    }
  });

  it('refuses to run agent code without a sandbox unless told --sandbox none', async () => {
    // No bubblewrap on this PATH: the worker cannot sandbox what it runs.
    const result = await runCli('hyperagents', ['worker', '--queue', redis.url], { PATH: '/nonexistent' });
    refused(result, 'pass --sandbox none');
  });

  it('shows an empty queue and no workers', async () => {
    const result = await runCli('hyperagents', ['queue', 'status', '--queue', redis.url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('0 waiting, 0 active');
    expect(result.stdout).toContain('workers: 0');
  });
});
