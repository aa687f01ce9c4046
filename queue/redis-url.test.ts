import { describe, expect, it } from 'vitest';
import { formatRedisTarget, parseRedisUrl } from './redis-url.ts';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', { host: '127.0.0.1', port: 6379, db: 0 }],
    ['redis://localhost', { host: 'localhost', port: 6379, db: 0 }],
    ['redis://queue.lan:7000/3', { host: 'queue.lan', port: 7000, db: 3 }],
    ['redis://[::1]:6380/1', { host: '::1', port: 6380, db: 1 }],
  ])('%s', (text, target) => {
    expect(parseRedisUrl(text)).toEqual({ ok: true, target });
  });

  it.each([
    ['localhost:6379', 'not a redis:// URL'],
    ['redis://', 'names no host'],
    ['http://127.0.0.1:6379', 'not a redis:// URL'],
    ['redis://user:secret@127.0.0.1:6379', 'user or password'],
    ['redis://127.0.0.1:6379/x', 'database must be a number'],
    ['redis://127.0.0.1:6379/16', 'database must be a number'],
    ['redis://127.0.0.1:6379/0?tls=1', 'options'],
  ])('refuses %s', (text, words) => {
    const parsed = parseRedisUrl(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(words);
  });

  it('formats a target back as a URL', () => {
    expect(formatRedisTarget({ host: '::1', port: 6380, db: 2 })).toBe('redis://[::1]:6380/2');
  });
});
