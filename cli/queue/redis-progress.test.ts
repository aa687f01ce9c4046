import { describe, expect, it } from 'vitest';
import type { RedisEvent } from '../../queue/index.ts';
import { redisLine } from './redis-progress.ts';

const url = 'redis://10.0.0.2:6379/0';

describe('redisLine', () => {
  it.each<[RedisEvent, string]>([
    [
      { type: 'redis_waiting', url, waitedMs: 3_400 },
      'waiting for Redis at redis://10.0.0.2:6379/0, 3 s (it does not answer; the queue goes on when it does)',
    ],
    [
      { type: 'redis_waiting', url, waitedMs: 40_020 },
      'waiting for Redis at redis://10.0.0.2:6379/0, 40 s (it does not answer; the queue goes on when it does)',
    ],
    [
      { type: 'redis_back', url, waitedMs: 61_700 },
      'Redis at redis://10.0.0.2:6379/0 answers again, after 62 s',
    ],
  ])('%o', (event, line) => {
    expect(redisLine(event)).toBe(line);
  });
});
