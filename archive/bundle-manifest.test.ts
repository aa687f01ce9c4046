import { describe, expect, it } from 'vitest';
import { bundleName } from './bundle-manifest.ts';

describe('bundleName', () => {
  it.each([
    ['manifest.json', true],
    ['archive.sqlite', true],
    ['variants.git/HEAD', true],
    ['variants.git/objects/ab/cdef', true],
    ['domains/gsm/data.jsonl', true],
    ['variants.git/config', false],
    ['variants.git/objects/info/alternates', false],
    ['variants.git/objects/../../../../dev/zero', false],
    ['variants.git/refs//heads/x', false],
    ['domains/gsm/../../secret', false],
    ['../secret.txt', false],
    ['/etc/passwd', false],
    ['variants.git/refs/heads/..\\..\\x', false],
    ['domains/gsm', false],
  ])('%s: %s', (name, ok) => {
    expect(bundleName(name)).toBe(ok);
  });
});
