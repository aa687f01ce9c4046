import { describe, expect, it } from 'vitest';
import { planRun, type RunEnv } from './run-plan.ts';

const config = {
  metaModel: 'sim',
  taskModel: 'sim',
  sandbox: 'auto' as const,
  simScript: null,
  record: null,
  replay: null,
};
const bwrap: RunEnv = { vars: {}, sandbox: { kind: 'bwrap' }, storedIn: null };
const noBwrap: RunEnv = {
  vars: {},
  sandbox: { kind: 'none', why: 'bubblewrap (bwrap) is not installed' },
  storedIn: null,
};
const real = { metaModel: 'anthropic/claude-sonnet-4-6', taskModel: 'anthropic/claude-sonnet-4-6' };
const key = { ANTHROPIC_API_KEY: 'sk-ant-test' };

describe('planRun', () => {
  it.each([
    ['sim in a sandbox', config, bwrap, { sandbox: { kind: 'bwrap' }, simulated: true, cacheable: true }],
    ['sim unsandboxed', config, noBwrap, { sandbox: noBwrap.sandbox, simulated: true, cacheable: true }],
    ['a sim script', { ...config, simScript: '/s.json' }, bwrap, { simulated: true, cacheable: false }],
    ['a recording', { ...config, record: '/r.jsonl' }, bwrap, { cacheable: false }],
    [
      'a replay of a real model without its key',
      { ...config, ...real, replay: '/r.jsonl' },
      bwrap,
      {
        simulated: false,
        cacheable: false,
      },
    ],
    ['a real model with its key', { ...config, ...real }, { ...bwrap, vars: key }, { simulated: false }],
    [
      'a real model for the task agent only',
      { ...config, taskModel: real.taskModel },
      { ...bwrap, vars: key },
      {
        simulated: false,
      },
    ],
    [
      'a real model unsandboxed by --sandbox none',
      { ...config, ...real, sandbox: 'none' as const },
      {
        ...noBwrap,
        vars: key,
      },
      { simulated: false },
    ],
  ])('plans %s', (_what, given, env, expected) => {
    const planned = planRun(given, env);
    expect(planned.ok).toBe(true);
    if (planned.ok) expect(planned.plan).toMatchObject(expected);
  });

  it.each([
    ['a real model without its key', { ...config, ...real }, bwrap, /ANTHROPIC_API_KEY/],
    [
      '--sandbox bwrap where it does not work',
      { ...config, sandbox: 'bwrap' as const },
      { ...bwrap, sandbox: { kind: 'missing' as const } },
      /^--sandbox bwrap was asked for, but bubblewrap does not work here\. Install it .* or pass --sandbox auto or none\.$/,
    ],
    [
      'a real model without a sandbox',
      { ...config, ...real },
      { ...noBwrap, vars: key },
      /^Agents would run real models without a sandbox \(bubblewrap \(bwrap\) is not installed\)\. Install bubblewrap, or pass --sandbox none/,
    ],
    [
      "a stored run's real model without a sandbox",
      { ...config, ...real },
      { ...noBwrap, vars: key, storedIn: '/runs/r1' },
      /the run \/runs\/r1 was started with --sandbox auto, which needs it here\.$/,
    ],
  ])('refuses %s', (_what, given, env, message) => {
    const planned = planRun(given, env);
    expect(planned.ok).toBe(false);
    if (!planned.ok) expect(planned.message).toMatch(message);
  });
});
