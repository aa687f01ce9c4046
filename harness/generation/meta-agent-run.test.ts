import { describe, expect, it } from 'vitest';
import { editVerdict } from './meta-agent-run.ts';

const ended = { exitCode: 0, timedOut: false, overLimit: null, tail: '' };

describe('editVerdict', () => {
  it.each([
    ['exit 0', ended, { ok: true }],
    [
      'a timeout the harness set',
      { ...ended, exitCode: null, timedOut: true },
      { ok: false, reason: 'MetaAgent timed out after 600 s', cause: 'timeout' },
    ],
    [
      'a limit the harness watches',
      { ...ended, exitCode: null, overLimit: 'wrote more than 512 MiB (--disk-mb)' },
      { ok: false, reason: 'MetaAgent stopped: it wrote more than 512 MiB (--disk-mb)', cause: 'agent' },
    ],
    [
      "the agent's own failure, with its last three lines",
      { ...ended, exitCode: 3, tail: 'one\ntwo\nthree\nfour' },
      { ok: false, reason: 'MetaAgent exited with code 3: two | three | four', cause: 'agent' },
    ],
  ])('reads %s', (_, finished, verdict) => {
    expect(editVerdict(finished, 600)).toEqual(verdict);
  });
});
