import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactDeep, secretValues } from './redact.ts';

describe('createRedactor', () => {
  const redact = createRedactor(['plain-secret-value-42']);
  it.each([
    ['an Anthropic key', 'key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv done', `key: ${REDACTED} done`],
    [
      'an OpenAI project key',
      'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123',
      `OPENAI_API_KEY=${REDACTED}`,
    ],
    ['a Google key', 'AIzaSyA1234567890abcdefghijklmnopqrstu', REDACTED],
    ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', REDACTED],
    ['a known secret of any shape', 'found plain-secret-value-42 in env', `found ${REDACTED} in env`],
    [
      'a private key block',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----',
      REDACTED,
    ],
    ['ordinary text', 'the answer is 42; task-sk-1 passed', 'the answer is 42; task-sk-1 passed'],
  ])('%s', (_name, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('redacts every string inside event data', () => {
    expect(redactDeep({ tail: ['x plain-secret-value-42'], n: 1 }, redact)).toEqual({
      tail: [`x ${REDACTED}`],
      n: 1,
    });
  });
});

describe('secretValues', () => {
  it('takes the values of key, token and password variables long enough to be secrets', () => {
    expect(
      secretValues({
        ANTHROPIC_API_KEY: 'sk-ant-long-enough-value',
        GITHUB_TOKEN: 'abcdefghijklmnop',
        DB_PASSWORD: 'short',
        PATH: '/usr/bin:/bin:/usr/local/bin',
      }),
    ).toEqual(['sk-ant-long-enough-value', 'abcdefghijklmnop']);
  });
});
