import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../archive/index.ts';
import { capText, openCappedLog, readCapped } from './capped-output.ts';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'capped-output-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('capText', () => {
  it.each([
    ['short text is kept whole', 'hello', 10, 'hello'],
    ['long text is cut with a note', 'x'.repeat(30), 10, 'xxxxxxxxxx\n[hyperagents: cut here'],
    ['a cut never splits a character', 'éééééé', 3, 'é\n[hyperagents: cut here'],
  ])('%s', (_name, text, cap, start) => {
    expect(capText(text, cap).startsWith(start)).toBe(true);
  });
});

describe('openCappedLog', () => {
  it('cuts a log at its cap with a note, and redacts keys split across writes', () => {
    const file = path.join(tmp, 'gate.log');
    const log = openCappedLog(file, 100, createRedactor());
    log.write('token sk-ant-api03-Abcdefgh');
    log.write('IjklmnopQrst end\n');
    for (let i = 0; i < 50; i++) log.write(`line ${i}\n`);
    log.close();
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('token [redacted] end');
    expect(text).not.toContain('sk-ant');
    expect(text).toMatch(/cut here; the output passed the 100-byte limit .* \d+ more bytes were not kept/);
    expect(text.length).toBeLessThan(300);
  });

  it('refuses a link planted where the log goes, and writes nothing through it', () => {
    const target = path.join(tmp, 'grader.ts');
    symlinkSync(target, path.join(tmp, 'task-agent.log'));
    expect(() => openCappedLog(path.join(tmp, 'task-agent.log'), 100, createRedactor())).toThrow(
      /ELOOP|link/,
    );
    expect(readdirSync(tmp)).toEqual(['task-agent.log']);
  });
});

describe('readCapped', () => {
  it('reads a regular file, cut at the cap, and nothing through a link or from a folder', () => {
    const dir = path.join(tmp, 'out');
    mkdirSync(dir);
    symlinkSync('/etc/passwd', path.join(dir, 'transcript.json'));
    expect(readCapped(path.join(dir, 'transcript.json'), 1000)).toBeNull();
    expect(readCapped(dir, 1000)).toBeNull();
  });
});
