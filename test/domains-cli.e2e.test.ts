import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALS, LEAP_DAYS, writeExercises } from '../domains/testing/exercise-fixtures.ts';
import { section } from './doc-pages.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

/** Commas, doubled quotes and a line break inside fields, non-ASCII text, a BOM, CRLF, and one bad row. */
const AWKWARD_CSV =
  '\uFEFFid,question,answer\r\n' +
  'fr,"Capital of France, in one word?",Paris\r\n' +
  'quote,"Who said ""hello, world"" first?","Kernighan, Brian"\r\n' +
  'lines,"A question\r\nover two lines: capital of Switzerland?",Bern\r\n' +
  'short,only two fields\r\n' +
  'de,"Größte Stadt Bayerns?",München\r\n' +
  'jp,"日本の首都は?",東京\r\n';

const GSM_JSONL = [
  {
    id: 'g1',
    question: 'Ann has 3 boxes of 4 pens. How many pens?',
    solution: '3 boxes times 4 pens\n#### 12',
  },
  { id: 'g2', question: 'A ticket costs $1,250. Two tickets?', solution: '2 * 1250 = 2500\n#### 2,500' },
  { id: 'g3', question: 'No marker here', solution: 'the answer is 7' },
]
  .map((row) => JSON.stringify(row))
  .concat(['{not json'])
  .join('\n');

/** Files shaped like GSM8K, OpenBookQA/ARC and TruthfulQA. */
const FIXTURES = path.join(PROJECT_ROOT, 'domains', 'testing', 'datasets');

let dir: string;
const gsmFlags = ['--answer-field', 'solution', '--answer-pattern', '#### (.+)$', '--metric', 'numeric'];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'domains-cli-'));
  writeFileSync(path.join(dir, 'capitals.csv'), AWKWARD_CSV);
  writeFileSync(path.join(dir, 'gsm.jsonl'), `${GSM_JSONL}\n`);
  writeExercises(path.join(dir, 'exercises'), [LEAP_DAYS, INITIALS]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hyperagents domains test', () => {
  it('scores every gold answer of an awkward CSV 1 and reports the malformed row by line', async () => {
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'dataset:capitals.csv', '--json'],
      {},
      dir,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report)).toEqual(['domain', 'tasks', 'score', 'results', 'skipped', 'checks']);
    expect(report).toMatchObject({
      domain: 'capitals',
      tasks: 5,
      score: 1,
      skipped: [{ line: 6, reason: '2 fields where the header has 3' }],
    });
    expect(report.results.map((r: { id: string }) => r.id).sort()).toEqual([
      'de',
      'fr',
      'jp',
      'lines',
      'quote',
    ]);
    for (const r of report.results) expect(Object.keys(r)).toEqual(['id', 'split', 'score', 'detail']);
    expect(report.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['declares itself', true],
      ['has tasks', true],
      ['ids unique', true],
      ['splits disjoint', true],
      ['loading deterministic', true],
      ['configured for its source', true],
      ['gold not in the inputs', true],
      ['gold answers are answers', true],
      ['gold answers score 1', true],
      ['echoing the input scores 0', true],
      ['a wrong answer scores below 1', true],
    ]);
  }, 120_000);

  it('takes the gold answer out of a longer JSONL field with --answer-pattern', async () => {
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'dataset:gsm.jsonl', ...gsmFlags, '--json'],
      {},
      dir,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ domain: 'gsm', tasks: 2, score: 1 });
    expect(report.skipped).toEqual([
      { line: 3, reason: expect.stringMatching(/^the answer pattern .* does not match "the answer is 7"/) },
      { line: 4, reason: expect.stringMatching(/^not valid JSON/) },
    ]);
  }, 120_000);

  it('reads the same mapping from a sidecar file', async () => {
    writeFileSync(path.join(dir, 'gsm2.jsonl'), `${GSM_JSONL}\n`);
    writeFileSync(
      path.join(dir, 'gsm2.domain.json'),
      JSON.stringify({ answerField: 'solution', answerPattern: '#### (.+)$', metric: 'numeric' }),
    );
    const result = await runCli('hyperagents', ['domains', 'test', 'dataset:gsm2.jsonl', '--json'], {}, dir);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ tasks: 2, score: 1 });
  }, 120_000);

  it('grades given answers per task and in total', async () => {
    const answers = path.join(dir, 'answers.jsonl');
    writeFileSync(answers, '{"id": "g1", "response": "12"}\n{"id": "g2", "response": 2400}\n');
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'dataset:gsm.jsonl', ...gsmFlags, '--answers', answers, '--json'],
      {},
      dir,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.score).toBe(0.5);
    expect(report.results.map((r: { id: string; score: number }) => [r.id, r.score])).toEqual([
      ['g1', 1],
      ['g2', 0],
    ]);
  }, 120_000);

  it('counts a task without an answer as 0, so a few answers cannot make a high score', async () => {
    const answers = path.join(dir, 'one-answer.jsonl');
    writeFileSync(answers, '{"id": "g1", "response": "The answer is 12."}\n');
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'dataset:gsm.jsonl', ...gsmFlags, '--answers', answers],
      {},
      dir,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Note: 1 task(s) have no answer in');
    expect(result.stdout).toMatch(
      /^ok {3}answers match tasks: 1 answers graded; 1 tasks had no answer and score 0$/m,
    );
    expect(result.stdout).toMatch(/^gsm: 2 tasks, 2 graded, score 0\.500$/m);
  }, 120_000);

  it.each([
    [
      'GSM8K without flags',
      ['dataset:gsm8k.jsonl'],
      /^FAIL gold answers are answers: 6 of 6 gold answers are worked solutions/m,
    ],
    [
      'TruthfulQA with a leaking input',
      [
        'dataset:truthfulqa.csv',
        '--answer-field',
        'Best Answer',
        '--input-fields',
        'Question,Correct Answers',
      ],
      /^FAIL gold not in the inputs: input field "Correct Answers" holds the gold answer in 6 of 6 tasks/m,
    ],
    [
      'ARC with --choices overriding its own labels',
      ['dataset:arc-flat.jsonl', '--answer-field', 'answerKey', '--metric', 'choice', '--choices', '1,2,3,4'],
      /^FAIL configured for its source: --choices 1,2,3,4 disagrees with the row's own choices/m,
    ],
  ])(
    'fails %s with a named reason (exit 1)',
    async (_what, args, message) => {
      const result = await runCli('hyperagents', ['domains', 'test', ...args], {}, FIXTURES);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(message);
    },
    120_000,
  );

  it('refuses a split field as an input, by name (exit 2)', async () => {
    const result = await runCli(
      'hyperagents',
      [
        'domains',
        'test',
        'dataset:arc-flat.jsonl',
        '--answer-field',
        'answerKey',
        '--input-fields',
        'question,split',
      ],
      {},
      FIXTURES,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--input-fields names "split", the split field/);
  }, 60_000);

  it('checks an exercise folder, and exits 1 when an example solution fails its spec', async () => {
    const good = await runCli('hyperagents', ['domains', 'test', 'exercism:exercises'], {}, dir);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/leap-days\s+1\.00\s+2\/2 tests passed/);
    const broken = writeExercises(path.join(dir, 'broken'), [
      { ...LEAP_DAYS, example: 'export const leapDays = () => 1;\n' },
    ]);
    const bad = await runCli('hyperagents', ['domains', 'test', `exercism:${broken}`, '--json'], {}, dir);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout);
    expect(report.results).toEqual([
      {
        id: 'javascript/leap-days',
        split: 'train',
        score: 0,
        detail: expect.stringMatching(/^1\/2 tests passed/),
      },
    ]);
    expect(report.groups).toEqual([{ group: 'javascript', passed: 0, failed: 1, skipped: 0 }]);
    expect(report.checks.find((c: { name: string }) => c.name === 'gold answers score 1')).toMatchObject({
      ok: false,
    });
  }, 180_000);

  it('refuses answers whose ids match no task (an exercise named without its language), exit 2, grading nothing', async () => {
    const answers = path.join(dir, 'short-ids.jsonl');
    writeFileSync(
      answers,
      `${JSON.stringify({ id: 'leap-days', files: { 'leap-days.js': LEAP_DAYS.example } })}\n`,
    );
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'exercism:exercises', '--answers', answers],
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('none of its 1 ids is the id of a task: leap-days.');
    expect(result.stderr).toMatch(/task ids look like \w+\/[\w-]+/);
    expect(result.stderr).toContain('Did you mean javascript/leap-days for leap-days?');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);

  it('grades workspace answers given as files written over the starting ones', async () => {
    const answers = path.join(dir, 'exercise-answers.jsonl');
    const line = (id: string, files: Record<string, string>) => JSON.stringify({ id, files });
    writeFileSync(
      answers,
      `${line('javascript/leap-days', { 'leap-days.js': LEAP_DAYS.example })}\n` +
        `${line('typescript/initials', { 'notes.md': 'the stub is left as it was' })}\n`,
    );
    const result = await runCli(
      'hyperagents',
      ['domains', 'test', 'exercism:exercises', '--answers', answers, '--json'],
      {},
      dir,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.results.map((r: { id: string; score: number }) => [r.id, r.score]).sort()).toEqual([
      ['javascript/leap-days', 1],
      ['typescript/initials', 0],
    ]);
  }, 180_000);

  it.each([
    [['domains', 'test'], /takes one REF/],
    [['domains', 'test', 'dataset:missing.csv'], /dataset:.*missing\.csv: no such file or folder\./],
    [
      ['domains', 'test', 'dataset:exercises'],
      /dataset:.*exercises is a folder of exercises: name it exercism:/,
    ],
    [
      ['domains', 'test', 'dataset:capitals.csv', '--answer-field', 'nope'],
      /say which field holds the answer/,
    ],
    [['domains', 'test', 'nope'], /Unknown domain "nope"/],
    [['domains', 'frobnicate'], /domains takes no word "frobnicate"/],
    [['domains', '--metric', 'exact'], /--metric belongs to "hyperagents domains test REF"/],
  ])(
    'answers %j with exit code 2 and a message',
    async (args, message) => {
      const result = await runCli('hyperagents', args, {}, dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
});

describe('hyperagents domains show', () => {
  it('prints the input and format hint the TaskAgent gets for a task, the first one by default', async () => {
    const flags = ['--answer-field', 'answerKey', '--metric', 'choice'];
    const first = await runCli(
      'hyperagents',
      ['domains', 'show', 'dataset:openbookqa.jsonl', ...flags],
      {},
      FIXTURES,
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Task \S+ \(train\) of openbookqa, as the TaskAgent receives it:$/m);
    expect(first.stdout).toMatch(
      /^format hint: The answer is the label of one of the task's choices \(A, B, C, D\), alone\.$/m,
    );
    const one = await runCli(
      'hyperagents',
      ['domains', 'show', 'dataset:openbookqa.jsonl', '7-321', ...flags, '--json'],
      {},
      FIXTURES,
    );
    expect(JSON.parse(one.stdout)).toEqual({
      split: expect.any(String),
      request: {
        id: '7-321',
        domain: 'openbookqa',
        input: {
          question: {
            stem: 'Stars are',
            choices: [
              { text: 'warm lights that float', label: 'A' },
              { text: 'made out of nitrate', label: 'B' },
              { text: 'great balls of gas burning billions of miles away', label: 'C' },
              { text: 'lights in the sky', label: 'D' },
            ],
          },
        },
        formatHint: "The answer is the label of one of the task's choices (A, B, C, D), alone.",
      },
    });
  }, 60_000);

  it('says which tasks there are for an unknown task id (exit 2)', async () => {
    const result = await runCli(
      'hyperagents',
      ['domains', 'show', 'dataset:gsm8k.jsonl', '7-32'],
      {},
      FIXTURES,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^hyperagents: gsm8k has no task "7-32"\. Its 6 tasks have ids such as/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('bad datasets and answer files: a clear message with the line, and the right exit code', () => {
  /** Row 3 quotes wrongly, row 4 holds a NUL byte, row 5 has text after its closing quote. */
  const BROKEN_CSV =
    'id,question,answer\n' +
    'fr,Capital of France?,Paris\n' +
    'it,Capital of "Italy"?,Rome\n' +
    'de,Capital of Germany\u0000?,Berlin\n' +
    'es,"Capital of Spain?"!,Madrid\n' +
    'ch,Capital of Switzerland?,Bern\n';

  it('domains test leaves out rows with broken quoting or a NUL byte, naming each by line', async () => {
    writeFileSync(path.join(dir, 'broken.csv'), BROKEN_CSV);
    const result = await runCli('hyperagents', ['domains', 'test', 'dataset:broken.csv'], {}, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^skipped line 3: a quote inside a field that does not start with one/m);
    expect(result.stdout).toMatch(/^skipped line 4: a NUL byte \(is the file binary/m);
    expect(result.stdout).toMatch(/^skipped line 5: text after the closing quote of a field/m);
    expect(result.stdout).toMatch(/^broken: 2 tasks, 2 graded, score 1\.000$/m);
  }, 120_000);

  it('a row whose answer is an empty list is left out, not made a task', async () => {
    writeFileSync(
      path.join(dir, 'lists.jsonl'),
      '{"id":"a","q":"Capital of Peru?","answer":[]}\n{"id":"b","q":"Capital of Chile?","answer":["Santiago"]}\n',
    );
    const result = await runCli('hyperagents', ['domains', 'test', 'dataset:lists.jsonl', '--json'], {}, dir);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.tasks).toBe(1);
    expect(report.skipped).toEqual([{ line: 1, reason: 'no answer in field "answer" (an empty list)' }]);
  }, 120_000);

  it('generate-loop says which rows it left out, also with --quiet, and never evaluates them', async () => {
    writeFileSync(path.join(dir, 'broken2.csv'), BROKEN_CSV);
    const out = path.join(dir, 'runs-broken');
    const result = await runCli(
      'generate-loop',
      [
        '--domains',
        'dataset:broken2.csv',
        '--model',
        'sim',
        '--generations',
        '0',
        '--eval-test',
        '--out',
        out,
        '--run-id',
        'b',
      ],
      {},
      dir,
    );
    const quiet = await runCli(
      'generate-loop',
      [
        ...['--domains', 'dataset:broken2.csv', '--model', 'sim', '--generations', '0'],
        '--out',
        out,
        '--quiet',
      ],
      {},
      dir,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(quiet.code, quiet.stderr).toBe(0);
    for (const stderr of [result.stderr, quiet.stderr]) {
      expect(stderr).toMatch(
        /^Domain broken2 left out 3 entries of its source, which it will not evaluate \(line 3: a quote inside .*; line 4: a NUL byte .*; line 5: text after the closing quote .*\)\. hyperagents domains test lists them all\.$/m,
      );
    }
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(out, 'b', 'archive.sqlite'), { readonly: true });
    const ids = db.prepare('SELECT task_id FROM task_results ORDER BY task_id').all() as {
      task_id: string;
    }[];
    db.close();
    expect(ids.map((r) => r.task_id)).toEqual(['ch', 'fr']);
  }, 300_000);

  it('a dataset whose header row is broken is refused with its line', async () => {
    writeFileSync(path.join(dir, 'header.csv'), 'id,"question"s,answer\nfr,Capital?,Paris\n');
    const result = await runCli('hyperagents', ['domains', 'test', 'dataset:header.csv'], {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /header\.csv, line 1: text after the closing quote .*The first row gives the fields/,
    );
  }, 60_000);

  it.each([
    [
      'an empty answers file',
      () => writeFileSync(path.join(dir, 'empty.jsonl'), '\n\n'),
      'empty.jsonl',
      /--answers .*empty\.jsonl holds no answers, so there is nothing to grade\./,
    ],
    [
      'an answer given twice for one task',
      () =>
        writeFileSync(
          path.join(dir, 'twice.jsonl'),
          '{"id": "g1", "response": "12"}\n{"id": "g2", "response": "1"}\n{"id": "g1", "response": "13"}\n',
        ),
      'twice.jsonl',
      /--answers .*twice\.jsonl, line 3: task g1 was answered on line 1 already\. Give each task one answer/,
    ],
    [
      'a folder given as the answers file',
      () => mkdirSync(path.join(dir, 'answers-folder'), { recursive: true }),
      'answers-folder',
      /--answers .*answers-folder is a folder: give a JSON Lines file\./,
    ],
  ])(
    '%s: exit 2 and the file named',
    async (_what, make, file, message) => {
      make();
      const result = await runCli(
        'hyperagents',
        ['domains', 'test', 'dataset:gsm.jsonl', ...gsmFlags, '--answers', file],
        {},
        dir,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/EISDIR|\n\s+at /);
      expect(result.stdout).toBe('');
    },
    60_000,
  );
});

/** The commands of the "Add a domain" section of docs/domains.md, run as written (plus --json to read the result). */
describe('the docs\' "Add a domain" section', () => {
  const page = readFileSync(path.join(PROJECT_ROOT, 'docs', 'domains.md'), 'utf8');
  const blocks = [...section(page, '## Add a domain').matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    body: m[2]!,
  }));
  const lines = blocks.filter((b) => b.lang === '').flatMap((b) => b.body.trim().split('\n'));
  const commands = lines
    .map((line) => line.trim().split(/\s+/))
    // Run from the clone through npx, as the docs say; here through the bin scripts.
    .map((words) => (words[0] === 'npx' ? words.slice(1) : words));

  it('has a dataset in two commands and an Exercism folder in one', () => {
    expect(commands.map((c) => c.slice(0, 3).join(' '))).toEqual([
      'hyperagents domains test',
      'generate-loop --domains dataset:capitals.csv',
      'generate-loop --domains exercism:exercises',
    ]);
  });

  it("holds the README's example, so the README's commands are the ones run here", () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const example = [...section(readme, '## Plug in a domain').matchAll(/```bash\n([\s\S]*?)```/g)]
      .flatMap((m) => m[1]!.trim().split('\n'))
      .map((line) => line.replace(/\s+#.*$/, ''))
      // The domain module's commands are run by test/module-domain.e2e.test.ts.
      .filter((line) => !line.includes('module:'));
    expect(example.length).toBeGreaterThan(0);
    for (const command of example) expect(lines).toContain(command);
  });

  it.each([0, 1, 2])(
    'command %i runs as written',
    async (i) => {
      const [bin, ...args] = commands[i]!;
      const extra = bin === 'generate-loop' ? ['--json', '--quiet', '--run-id', `readme-${i}`] : [];
      const result = await runCli(bin as 'hyperagents' | 'generate-loop', [...args, ...extra], {}, dir);
      expect(result.stderr).not.toMatch(/failed/);
      expect(result.code).toBe(0);
      if (bin === 'generate-loop') {
        const summary = JSON.parse(result.stdout);
        expect(summary.simulated).toBe(true);
        expect(summary.variants.length).toBeGreaterThanOrEqual(2);
        const domain = i === 1 ? 'capitals' : 'exercises';
        expect(Object.keys(summary.variants[0].scores)).toEqual([domain]);
      }
    },
    600_000,
  );

  describe('the example domain folder', () => {
    const example = blocks.find((b) => b.lang === 'ts')!.body;
    const name = `readme-example-${process.pid}`;
    const folder = path.join(PROJECT_ROOT, 'domains', name);
    beforeAll(() => {
      mkdirSync(folder);
      writeFileSync(path.join(folder, 'index.ts'), example.replaceAll('capital-letters', name));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it('appears in hyperagents domains, passes domains test and runs in generate-loop, with no list edited', async () => {
      const listed = await runCli('hyperagents', ['domains', '--json']);
      expect(JSON.parse(listed.stdout)).toContainEqual({
        name,
        description: 'Write a city name in capital letters.',
        splits: ['train', 'val', 'test'],
        sizes: { train: 6, val: 3, test: 3 },
        metric: 'exact',
        stagedSamples: 3,
      });
      const tested = await runCli('hyperagents', ['domains', 'test', name]);
      expect(tested.code).toBe(0);
      const run = await runCli('generate-loop', [
        '--domains',
        name,
        '--model',
        'sim',
        '--generations',
        '1',
        '--json',
        '--quiet',
        '--out',
        path.join(dir, 'runs-example'),
      ]);
      expect(run.code).toBe(0);
      expect(Object.keys(JSON.parse(run.stdout).variants[0].scores)).toEqual([name]);
    }, 300_000);
  });
});

describe('generate-loop over a shipped domain, an exercise folder and a dataset at once', () => {
  it('runs end to end on the simulated model, which knows every gold answer', async () => {
    const out = path.join(dir, 'runs-mixed');
    const result = await runCli(
      'generate-loop',
      [
        '--domains',
        'code,exercism:exercises,gsm=dataset:gsm.jsonl',
        ...gsmFlags,
        '--model',
        'sim',
        '--generations',
        '1',
        '--eval-samples',
        '3',
        '--out',
        out,
        '--run-id',
        'mixed',
        '--json',
        '--quiet',
      ],
      {},
      dir,
    );
    expect(result.stderr).not.toMatch(/failed:/);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(Object.keys(summary.variants[0].scores).sort()).toEqual(['code', 'exercises', 'gsm']);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(out, 'mixed', 'archive.sqlite'), { readonly: true });
    const rows = db
      .prepare('SELECT domain, outcome, detail FROM task_results WHERE variant_id = 0')
      .all() as {
      domain: string;
      outcome: string;
      detail: string | null;
    }[];
    db.close();
    expect(new Set(rows.map((r) => r.domain))).toEqual(new Set(['code', 'exercises', 'gsm']));
    expect(rows.some((r) => r.outcome === 'correct')).toBe(true);
    for (const r of rows.filter((r) => r.domain !== 'gsm' && r.outcome !== 'parse_failure')) {
      expect(r.detail).toMatch(/^\d+\/\d+ tests passed|limit/);
    }
  }, 600_000);
});

/** Shell words as the README writes them: single quotes keep spaces and `$`; nothing else is special. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("the README's dataset examples", () => {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const commands = [...section(readme, '## Plug in a domain').matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.trim().split('\n'))
    .map(shellWords)
    .map((words) => (words[0] === 'npx' ? words.slice(1) : words));

  it('show GSM8K, TruthfulQA, an ARC-style Hugging Face folder, inspect samples and an lm-eval task YAML', () => {
    expect(commands.map((c) => c[3]!.replace(/^(dataset|lmeval):domains\/testing\/datasets\//, ''))).toEqual([
      'gsm8k.jsonl',
      'truthfulqa.csv',
      'hf-arc',
      'inspect.jsonl',
      'lmeval/gsm8k-local.yaml',
    ]);
  });

  it.each([0, 1, 2, 3, 4])(
    'example %i passes domains test as written, from the clone, every gold answer scoring 1',
    async (i) => {
      const [bin, ...args] = commands[i]!;
      const result = await runCli(bin as 'hyperagents', [...args, '--json'], {}, PROJECT_ROOT);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.tasks).toBe(6);
      expect(report.score).toBe(1);
      expect(report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    },
    120_000,
  );
});
