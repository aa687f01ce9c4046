import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-setup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What a fresh clone of this working tree holds: tracked and new files, nothing ignored (no node_modules). */
function freshCopy(): string {
  const copy = path.join(tmp, 'clone');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    try {
      cpSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
    } catch {
      // A tracked file deleted in the working tree is not in a clone of it either.
    }
  }
  return copy;
}

describe('npm run setup in a fresh clone', () => {
  it('says which step it is on, and how far the install has got at least every 10 seconds', async () => {
    const copy = freshCopy();
    // The packages come from npm's cache where it has them (as on a second clone); the registry otherwise.
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_prefer_offline: 'true' };
    delete env.npm_command;
    const lines: { at: number; text: string }[] = [];
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('npm', ['run', 'setup'], { cwd: copy, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let pending = '';
      const take = (chunk: Buffer) => {
        pending += chunk.toString();
        const parts = pending.split('\n');
        pending = parts.pop()!;
        for (const text of parts) lines.push({ at: (Date.now() - started) / 1000, text });
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('close', resolve);
    });
    const texts = lines.map((l) => l.text);
    expect(code, texts.join('\n')).toBe(0);
    const steps = texts.filter((t) => t.startsWith('setup ['));
    expect(steps).toEqual([
      'setup [1/4] checking Node.js and git',
      'setup [2/4] installing dependencies with npm ci (a few minutes the first time)',
      'setup [3/4] checking the sandbox (bubblewrap)',
      'setup [4/4] evaluating the initial agent on arithmetic with the simulated model',
    ]);
    // From the start of the install to its end, never more than 10 s (and some slack for a busy machine)
    // without a line saying how far it has got.
    const from = texts.findIndex((t) => t.startsWith('setup [2/4]'));
    const to = texts.findIndex((t) => /^setup: dependencies installed in \d+ s$/.test(t));
    expect(to).toBeGreaterThan(from);
    const install = lines.slice(from, to + 1);
    const gaps = install.slice(1).map((l, i) => l.at - install[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(20);
    const heartbeats = install.filter((l) => l.text.startsWith('setup: still installing'));
    if (install.at(-1)!.at - install[0]!.at > 12) expect(heartbeats.length).toBeGreaterThan(0);
    for (const h of heartbeats)
      expect(h.text).toMatch(
        /^setup: still installing \(\d+ s\): (\d+ of \d+ packages unpacked|all \d+ packages)/,
      );
    // The Polyglot benchmark's Debian packages are checked, and the command that installs them named if any lack.
    expect(texts.find((t) => t.startsWith('polyglot: '))).toMatch(
      /^polyglot: (all \d+ Debian packages .* are installed\.|\d+ of \d+ Debian packages)/,
    );
    expect(texts.at(-1)).toBe('Setup done. Next: npx generate-loop --domains arithmetic');
  }, 900_000);
});
