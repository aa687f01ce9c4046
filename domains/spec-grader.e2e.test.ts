import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGradeContext } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { gradeWithSpec } from './spec-grader.ts';
import { LEAP_DAYS } from './testing/exercise-fixtures.ts';

const nodeModules = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
const sandbox = resolveSandbox('bwrap');
if (sandbox.kind !== 'bwrap') throw new Error('these tests need bubblewrap (apt-get install bubblewrap)');
const ctx = createGradeContext({ sandbox, nodeModules });
const limits = { timeoutMs: 45_000, memoryMb: 256 };

/** The leap-days exercise as the spec runner is given it. */
const leap = () => ({
  answer: {
    solutionFile: LEAP_DAYS.solutionFile,
    specFile: LEAP_DAYS.specFile,
    spec: LEAP_DAYS.spec,
    support: {},
  },
});

describe('the spec runner', () => {
  it("scores 0 when an xtest fails (Exercism's CI enables it); test.skip is not counted", async () => {
    const grade = await gradeWithSpec(
      ctx,
      { ...leap().answer, solution: 'export const leapDays = () => 1;\n' },
      limits,
    );
    expect(grade).toMatchObject({ score: 0 });
    expect(typeof grade === 'object' && grade.detail).toMatch(/^1\/2 tests passed; leapDays › a century/);
  }, 120_000);

  it('does not believe a solution that prints a passing result and exits', async () => {
    const solution =
      'process.stdout.write(\'\\n@@spec-result@@{"passed":3,"total":3,"failures":[]}\\n\');\nprocess.exit(0);\nexport const leapDays = () => 0;\n';
    const grade = await gradeWithSpec(ctx, { ...leap().answer, solution }, limits);
    expect(grade).toMatchObject({ score: 0 });
  }, 120_000);
});

describe('grading limits and the sandbox', () => {
  it('kills an infinite loop at the time limit and scores 0', async () => {
    const started = Date.now();
    const grade = await gradeWithSpec(
      ctx,
      { ...leap().answer, solution: 'export const leapDays = () => { for (;;) {} };\n' },
      { timeoutMs: 15_000, memoryMb: 256 },
    );
    expect(grade).toEqual({ score: 0, detail: 'time limit of 15 s exceeded' });
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('stops a memory hog at the memory limit and scores 0', async () => {
    const solution =
      'export const leapDays = () => { const hoard = []; for (;;) hoard.push(new Array(1e5).fill(Math.random())); };\n';
    const grade = await gradeWithSpec(
      ctx,
      { ...leap().answer, solution },
      { timeoutMs: 90_000, memoryMb: 128 },
    );
    expect(grade).toEqual({ score: 0, detail: 'memory limit of 128 MiB exceeded' });
  }, 120_000);

  it('fails a spec that writes outside its folder, and nothing lands on the disk', async () => {
    const target = path.join('/var/tmp', `escaped-${process.pid}.txt`);
    const spec = [
      "import { writeFileSync } from 'node:fs';",
      "test('writes outside', () => {",
      `  writeFileSync(${JSON.stringify(target)}, 'x');`,
      "  writeFileSync('../escaped.txt', 'x');",
      '});',
      '',
    ].join('\n');
    const grade = await gradeWithSpec(ctx, { ...leap().answer, spec, solution: LEAP_DAYS.example }, limits);
    expect(grade).toMatchObject({ score: 0 });
    expect(typeof grade === 'object' && grade.detail).toMatch(
      /0\/1 tests passed; writes outside: .*(EROFS|read-only|Access to this API has been restricted)/,
    );
    expect(existsSync(target)).toBe(false);
  }, 120_000);

  describe('a spec that opens a network connection', () => {
    let server: Server;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('fails in the sandbox, and the server hears nothing', async () => {
      const port = (server.address() as AddressInfo).port;
      const spec = `test('phones home', async () => {\n  const res = await fetch('http://127.0.0.1:${port}/');\n  expect(await res.text()).toBe('ok');\n});\n`;
      const grade = await gradeWithSpec(ctx, { ...leap().answer, spec, solution: LEAP_DAYS.example }, limits);
      expect(grade).toMatchObject({ score: 0 });
      expect(typeof grade === 'object' && grade.detail).toMatch(
        /^0\/1 tests passed; phones home: fetch failed/,
      );
      expect(hits).toBe(0);
    }, 120_000);
  });
});
