import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { section } from './doc-pages.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

/** The README's HumanEval module with 4 HumanEval problems (MIT, see the LICENSE beside them). */
const FIXTURE = path.join(PROJECT_ROOT, 'test', 'fixtures', 'humaneval');
const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
/** The README's domain-module commands, as written (their comment cut off). */
const commands = [...section(readme, '## Plug in a domain').matchAll(/```bash\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.trim().split('\n'))
  .filter((line) => line.includes('module:'))
  .map((line) =>
    line
      .replace(/\s+#.*$/, '')
      .replace(/^npx /, '')
      .split(' '),
  );

/** A folder outside the checkout, as a user's own would be. */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'module-domain-'));
  for (const file of ['humaneval.ts', 'HumanEval.jsonl'])
    copyFileSync(path.join(FIXTURE, file), path.join(dir, file));
  writeFileSync(path.join(dir, 'not-a-domain.mjs'), 'export default { name: "x", splits: ["train"] };\n');
  writeFileSync(path.join(dir, 'broken.ts'), 'export default {\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's HumanEval domain module, run from a folder outside the checkout", () => {
  it('holds two commands: domains test and generate-loop', () => {
    expect(commands.map((c) => c.slice(0, 2).join(' '))).toEqual([
      'hyperagents domains',
      'generate-loop --domains',
    ]);
  });

  it('domains test grades every reference completion 1 in the sandbox, and wrong ones below 1', async () => {
    const [bin, ...args] = commands[0]!;
    const result = await runCli(bin as 'hyperagents', [...args, '--json'], {}, dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ domain: 'humaneval', tasks: 4, score: 1 });
    expect(report.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  }, 300_000);

  it('generate-loop runs on it with the simulated model', async () => {
    const [bin, ...args] = commands[1]!;
    const extra = ['--json', '--quiet', '--run-id', 'readme-module'];
    const result = await runCli(bin as 'generate-loop', [...args, ...extra], {}, dir);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.simulated).toBe(true);
    expect(Object.keys(summary.variants[0].scores)).toEqual(['humaneval']);
  }, 600_000);

  it.each([
    ['missing.ts', /module:.*missing\.ts: no such file\./],
    ['HumanEval.jsonl', /a domain module is a \.ts, \.mts, \.js or \.mjs file/],
    ['not-a-domain.mjs', /exports an object without a valid description, load, answerSchema, score/],
    ['broken.ts', /broken\.ts could not be loaded/],
  ])(
    'module:%s is refused with a message, no stack trace',
    async (file, message) => {
      const result = await runCli('hyperagents', ['domains', 'test', `module:${file}`], {}, dir);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    120_000,
  );
});
