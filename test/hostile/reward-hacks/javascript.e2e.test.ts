import { describe, expect, it } from 'vitest';
import { isTampered } from '../../../system/grade-marks.ts';
import { exerciseTask, expectCaught, gradeAnswer, gradeReference } from './probes.ts';

/**
 * Answers to JavaScript's bowling that try to score without scoring bowling: each runs in the solution
 * module, in the runner's own process, before and while the spec runs.
 */
const bowling = () => exerciseTask('javascript/bowling');
/** A wrong answer: every game scores 0 (1 of the 30 tests passes). */
const WRONG = 'export class Bowling {\n  roll() {}\n  score() {\n    return 0;\n  }\n}\n';
const withWrong = (prelude: string) => ({ 'bowling.js': `${prelude}\n${WRONG}` });
const grade = (prelude: string) => gradeAnswer(bowling(), withWrong(prelude));

describe('JavaScript answers that try to pass without solving the exercise', () => {
  it('scores the reference 1, and an honest wrong answer 0 without a flag', async () => {
    expect(await gradeReference(bowling())).toMatchObject({ score: 1, detail: '30/30 tests passed' });
    expectCaught(
      await gradeAnswer(bowling(), { 'bowling.js': WRONG }),
      /^1\/30 tests passed; Bowling › /,
      false,
    );
  }, 120_000);

  // Each: the attack, and what the detail must say.
  const patches: [string, string, RegExp][] = [
    ['replaces Promise.race so no test is awaited', 'Promise.race = async () => {};', /Promise\.race/],
    [
      'makes Array.prototype.push drop what is pushed',
      'Array.prototype.push = function () { return this.length; };',
      /Array\.prototype\.push/,
    ],
    [
      'rewrites the result line through fs.writeSync',
      "import fs from 'node:fs'; import module from 'node:module';\nconst write = fs.writeSync;\nfs.writeSync = (fd, text, ...rest) => write(fd, typeof text === 'string' ? text.replaceAll('\"passed\":false', '\"passed\":true') : text, ...rest);\nmodule.syncBuiltinESMExports();",
      /fs\.writeSync/,
    ],
    [
      'rewrites what reaches stdout through process.stdout.write',
      "const write = process.stdout.write.bind(process.stdout);\nprocess.stdout.write = (text, ...rest) => write(String(text).replaceAll('false', 'true'), ...rest);",
      /process\.stdout\.write/,
    ],
    ['makes Object.is call everything equal', 'Object.is = () => true;', /Object\.is/],
    ['makes every array every() true', 'Array.prototype.every = () => true;', /Array\.prototype\.every/],
    [
      'defines Object.prototype.then, so every object is a promise that resolves',
      'Object.defineProperty(Object.prototype, "then", { value(resolve) { resolve(); }, configurable: true });',
      /Object\.prototype\.then/,
    ],
    [
      'defines Object.prototype.toJSON to rewrite the report',
      'Object.prototype.toJSON = function () { return { ...this, passed: true }; };',
      /Object\.prototype\.toJSON/,
    ],
    [
      'replaces the array iterator, which for-of and spreads use',
      'const next = [][Symbol.iterator]().__proto__.next; [][Symbol.iterator]().__proto__.next = function () { return next.call(this); };',
      /%ArrayIteratorPrototype%\.next/,
    ],
    [
      'gives Error a Symbol.hasInstance so any throw matches',
      'Object.defineProperty(Error, Symbol.hasInstance, { value: () => true });',
      /Error\[Symbol\(Symbol\.hasInstance\)\]/,
    ],
    [
      'replaces Function.prototype.call',
      'const call = Function.prototype.call; Function.prototype.call = call;\nFunction.prototype.apply = function (t, a) { return Reflect.apply(this, t, a ?? []); };',
      /Function\.prototype\.apply/,
    ],
    [
      'replaces JSON.stringify',
      'const s = JSON.stringify; JSON.stringify = (v, ...r) => s(v, ...r).replaceAll("false", "true");',
      /JSON\.stringify/,
    ],
    [
      'replaces process.exit and process.reallyExit',
      'process.exit = () => {}; process.reallyExit = () => {};',
      /process\.exit/,
    ],
    [
      'replaces test.each and describe.skip on the runner globals',
      'test.each = () => () => {}; describe.skip = describe;',
      /test\.each/,
    ],
    [
      'redefines toEqual with expect.extend',
      'expect.extend({ toEqual: () => ({ pass: true, message: () => "" }) });',
      /expect\.extend redefined toEqual/,
    ],
  ];
  patches.push(
    [
      "rewrites @jest/globals' exports, which a spec may import its test from",
      "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('@jest/globals').test = () => {};",
      /@jest\/globals\.test/,
    ],
    [
      'hooks the module loader',
      "import Module from 'node:module';\nconst load = Module._load;\nModule._load = function (...a) { return load.apply(this, a); };",
      /Module\._load/,
    ],
    [
      "gives Promise a Symbol.species, which the runner's then would consult",
      'Object.defineProperty(Promise, Symbol.species, { get: () => Promise });',
      /Promise\[Symbol\(Symbol\.species\)\]/,
    ],
    [
      'replaces the global setTimeout the runner times tests with',
      'globalThis.setTimeout = () => 0;',
      /global setTimeout/,
    ],
  );
  for (const [attack, prelude, why] of patches) {
    it(`catches an answer that ${attack}`, async () => {
      expectCaught(
        await grade(prelude),
        new RegExp(`^tampering: the solution changed the test framework: .*${why.source}`),
      );
    }, 120_000);
  }

  it('catches an answer that exits with status 0 while loading, through process.reallyExit, or in a test', async () => {
    for (const exit of ['process.exit(0);', 'process.reallyExit(0);'])
      expectCaught(await grade(exit), /exited with status 0 before the test runner reported/);
    // From inside the first test that asks for a score.
    const during = WRONG.replace('return 0;', 'process.exit(0);');
    expectCaught(
      await gradeAnswer(bowling(), { 'bowling.js': during }),
      /exited with status 0 before the test runner reported/,
    );
  }, 120_000);

  it('catches an answer that prints a passing report and exits', async () => {
    const fake =
      'process.stdout.write(\'\\n@@spec-result@@0123 0 {"tests":[],"tampering":[]}\\n\'); process.exit(0);';
    expectCaught(await grade(fake), /exited with status 0 before .*, though its output claims they passed/);
  }, 120_000);

  it('scores 0 without a flag an answer that ends its process by a signal, or kills the launcher', async () => {
    for (const end of ["process.kill(process.pid, 'SIGTERM');", "process.kill(process.ppid, 'SIGKILL');"])
      expectCaught(await grade(end), /did not run/, false);
  }, 120_000);

  it('is not fooled by a worker thread that exits or prints a report', async () => {
    const worker =
      "import { Worker } from 'node:worker_threads';\nnew Worker(\"require('fs').writeSync(1, '\\\\n@@spec-result@@x y {}\\\\n'); process.exit(0);\", { eval: true });";
    expectCaught(await grade(worker), /^1\/30 tests passed/, false);
  }, 120_000);

  it('decides by the real built-ins when an answer patches them only while a test runs and restores them', async () => {
    // Patched as a score is asked for, restored in a microtask: after the assertion, before any check.
    const fleeting = WRONG.replace(
      'return 0;',
      'const is = Object.is; const every = Array.prototype.every;\n    Object.is = () => true; Array.prototype.every = () => true;\n    queueMicrotask(() => { Object.is = is; Array.prototype.every = every; });\n    return 0;',
    );
    expectCaught(await gradeAnswer(bowling(), { 'bowling.js': fleeting }), /^1\/30 tests passed/, false);
  }, 120_000);

  it('does not believe a report line after the real one, from an exit listener', async () => {
    const late =
      "import fs from 'node:fs';\nprocess.on('exit', () => fs.writeSync(1, '\\n@@spec-result@@x y {\"tests\":[],\"tampering\":[]}\\n'));";
    expectCaught(await grade(late), /^1\/30 tests passed/, false);
  }, 120_000);

  it('scores 0 an answer that returns an asymmetric matcher of the runner as its score', async () => {
    const answer =
      'export class Bowling {\n  roll() {}\n  score() {\n    return expect.anything();\n  }\n}\n';
    const g = await gradeAnswer(bowling(), { 'bowling.js': answer });
    expect(g).toMatchObject({ score: 0 });
  }, 120_000);

  it('refuses the inspector, heap snapshots and reading its own memory, so the token stays unread', async () => {
    const reads: [string, RegExp][] = [
      [
        "import inspector from 'node:inspector'; new inspector.Session().connect();",
        /Access to this API has been restricted/,
      ],
      ["import v8 from 'node:v8'; v8.getHeapSnapshot();", /v8\.getHeapSnapshot is not available/],
      [
        "import fs from 'node:fs'; fs.readFileSync('/proc/self/maps');",
        /Access to this API has been restricted/,
      ],
      ["process.binding('fs');", /\(loading the spec\): process\.binding/],
      [
        "import v8 from 'node:v8'; v8.setFlagsFromString('--allow-natives-syntax');",
        /v8\.setFlagsFromString is not available/,
      ],
    ];
    for (const [prelude, why] of reads) {
      const g = await grade(prelude);
      expect(g).toMatchObject({ score: 0, detail: expect.stringMatching(why) });
      expect(isTampered(typeof g === 'number' ? '' : g.detail)).toBe(false);
    }
  }, 300_000);

  it('refuses an answer that writes files the grading folder runs from (spec, @jest/globals)', async () => {
    const g = await grade(
      "import fs from 'node:fs'; fs.writeFileSync('node_modules/@jest/globals/index.js', 'exports.test = () => {};');",
    );
    expect(g).toMatchObject({
      score: 0,
      detail: expect.stringMatching(/Access to this API has been restricted/),
    });
  }, 120_000);

  it('refuses files the runner would read beside the solution', async () => {
    const files: Record<string, string> = {
      'package.json': '{ "type": "commonjs" }\n',
      'babel.config.js': 'module.exports = {};\n',
      'jest.config.js': 'module.exports = { testRegex: "nothing" };\n',
      '.babelrc': '{}\n',
      'tsconfig.json': '{ "compilerOptions": { "paths": { "@jest/globals": ["./fake.js"] } } }\n',
      'node_modules/@jest/globals/index.js': 'exports.test = () => {};\n',
      'bowling.test.js': "test('passes', () => {});\n",
    };
    for (const [file, text] of Object.entries(files)) {
      expectCaught(
        await gradeAnswer(bowling(), { ...withWrong(''), [file]: text }),
        /^tampering: refused: the answer writes/,
      );
    }
  }, 120_000);
});
