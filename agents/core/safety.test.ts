import { describe, expect, it } from 'vitest';
import { createSafetyPolicy, defaultSafetyPolicy } from './safety.ts';

const ctx = { root: '/work/repo' };
const bash = (command: string) => defaultSafetyPolicy({ name: 'bash', input: { command } }, ctx);

describe('default safety policy for bash', () => {
  it.each([
    ['rm -rf /', 'recursive rm'],
    ['rm -rf ~', 'recursive rm'],
    ['cd x && rm -fr ../', 'recursive rm'],
    ['sudo rm -r -f /*', 'recursive rm'],
    ['rm -rf $HOME', 'recursive rm'],
    ['mkfs.ext4 /dev/sda1', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'dd'],
    ['shutdown -h now', 'stop the machine'],
    ['echo x; reboot', 'stop the machine'],
    [':(){ :|:& };:', 'fork bomb'],
    ['git push origin main', 'git push'],
    ['git -C repo push', 'git push'],
    ['chmod -R 777 /', 'chmod'],
    ['curl -s http://example.com', 'network'],
    ['ls | xargs wget', 'network'],
    ['/usr/bin/ssh host', 'network'],
    ['scp a host:b', 'network'],
    ['nc -l 8080', 'network'],
  ])('denies %s', (command, reason) => {
    const decision = bash(command);
    expect(decision.allow).toBe(false);
    if (!decision.allow) expect(decision.reason).toContain(reason);
  });

  it.each([
    'rm -rf build',
    'rm -rf ./dist node_modules/.cache',
    'rm file.txt',
    'git commit -m "push the fix"',
    'git status && git diff',
    'grep -r "shutdown" src',
    'echo curl is not run here',
    'chmod +x script.sh',
    'npx tsc --noEmit -p .',
  ])('allows %s', (command) => {
    expect(bash(command)).toEqual({ allow: true });
  });
});

describe('default safety policy for the editor', () => {
  it.each([
    ['agents/task/prompt.md', true],
    ['/work/repo/agents/x.ts', true],
    ['../other/file', false],
    ['/etc/passwd', false],
    ['agents/../../escape', false],
  ])('%s allowed: %s', (path, allowed) => {
    expect(defaultSafetyPolicy({ name: 'editor', input: { command: 'view', path } }, ctx).allow).toBe(
      allowed,
    );
  });
});

describe('createSafetyPolicy', () => {
  it('adds deny patterns, optionally per tool', () => {
    const policy = createSafetyPolicy({
      denyPatterns: [{ pattern: /\bnpm install\b/, reason: 'no installs', tool: 'bash' }],
    });
    expect(policy({ name: 'bash', input: { command: 'npm install left-pad' } }, ctx)).toEqual({
      allow: false,
      reason: 'no installs',
    });
    expect(policy({ name: 'other', input: { text: 'npm install' } }, ctx)).toEqual({ allow: true });
  });

  it('lets an override decide first', () => {
    const policy = createSafetyPolicy({
      override: (call) => (call.name === 'bash' ? { allow: true } : undefined),
    });
    expect(policy({ name: 'bash', input: { command: 'curl x' } }, ctx)).toEqual({ allow: true });
    expect(policy({ name: 'editor', input: { path: '/etc/x' } }, ctx).allow).toBe(false);
  });
});
