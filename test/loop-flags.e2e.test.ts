import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-flags-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const existing = path.join(tmp, 'existing.jsonl');
writeFileSync(existing, '{"key": "a"}\n');
const notRecording = path.join(tmp, 'notes.txt');
writeFileSync(notRecording, 'hello\nworld\n');
/** Keys set to empty strings win over the environment and any .env file. */
const NO_KEYS = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_API_KEY: '' };

describe('generate-loop refuses, with exit code 2 and before writing anything', () => {
  it.each([
    [
      'a real model without its key',
      ['--model', 'openai/gpt-4o-mini'],
      /set OPENAI_API_KEY in the environment or in a \.env file/,
    ],
    [
      'a MetaAgent model without its key',
      ['--meta-model', 'anthropic/claude-sonnet-4-5', '--task-model', 'sim'],
      /anthropic\/claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY/,
    ],
    [
      'a fault rate above 1',
      ['--sim-fault-rate', '2'],
      /--sim-fault-rate is the share of calls that fail, from 0 to below 1/,
    ],
    [
      'a replay file that does not exist',
      ['--replay', path.join(tmp, 'missing.jsonl')],
      /--replay .*missing\.jsonl: no such file\. Give a recording written by an earlier run with --record FILE\./,
    ],
    [
      'a replay file that is not a recording',
      ['--replay', notRecording],
      /--replay: .*notes\.txt line 1 is not JSON/,
    ],
    [
      '--record and --replay together',
      ['--record', path.join(tmp, 'new.jsonl'), '--replay', existing],
      /--record and --replay cannot be used together/,
    ],
    [
      'a recording over an existing file',
      ['--record', existing],
      /--record .*existing\.jsonl already exists\. A recording is written to a new file/,
    ],
  ])('%s', async (_name, args, message) => {
    const out = path.join(tmp, `out-${Math.random().toString(36).slice(2)}`);
    const result = await runCli('generate-loop', ['--domains', 'arithmetic', '--out', out, ...args], NO_KEYS);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(path.join(tmp, 'new.jsonl'))).toBe(false);
  });
});
