import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectVersion } from './project-version.ts';

const root = mkdtempSync(path.join(tmpdir(), 'project-version-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BASE = {
  'domains/a/index.ts': 'export default 1;',
  'domains/a/index.test.ts': 'test();',
  'harness/run.ts': 'run();',
  'queue/protocol.ts': 'wire();',
  'cli/main.ts': 'main();',
};

/** A project folder holding `files`; each call makes a new one. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, 'p-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('projectVersion', () => {
  const base = projectVersion(project(BASE), '0.1.0');

  it('is the package version and a hash of the domains, harness and queue code', () => {
    expect(base).toMatch(/^0\.1\.0\+[0-9a-f]{12}$/);
    expect(projectVersion(project(BASE), '0.1.0')).toBe(base);
  });

  it.each([
    ['a domain file changed', { 'domains/a/index.ts': 'export default 2;' }],
    ['a domain file added', { 'domains/a/data.json': '[]' }],
    ['a harness file changed', { 'harness/run.ts': 'run(1);' }],
    ['a queue file changed (what crosses Redis)', { 'queue/protocol.ts': 'wire(1);' }],
  ])('differs when %s', (_, change) => {
    expect(projectVersion(project({ ...BASE, ...change }), '0.1.0')).not.toBe(base);
  });

  it.each([
    ['a test changed', { 'domains/a/index.test.ts': 'test(1);' }],
    ['code outside domains/, harness/ and queue/ changed', { 'cli/main.ts': 'main(1);' }],
  ])('is the same when %s', (_, change) => {
    expect(projectVersion(project({ ...BASE, ...change }), '0.1.0')).toBe(base);
  });

  it('differs with the package version', () => {
    expect(projectVersion(project(BASE), '0.2.0')).toBe(`0.2.0+${base.split('+')[1]}`);
  });
});
