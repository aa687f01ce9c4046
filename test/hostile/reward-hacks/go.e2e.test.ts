import { describe, expect, it } from 'vitest';
import { exerciseTask, expectCaught, gradeAnswer, gradeReference } from './probes.ts';

/**
 * Answers to Go exercises that try to score without solving them, graded by the real Go grader in the
 * real sandbox. bowling (two test functions over package-level case tables) is the target; each answer is
 * wrong unless it cheats.
 */

const bowling = exerciseTask('go/bowling');
const reference = bowling.answer.reference['bowling.go']!;

/** A wrong bowling that compiles: every roll accepted, every score 0. */
const WRONG = `package bowling

type Game struct{}

func NewGame() *Game { return &Game{} }

func (g *Game) Roll(pins int) error { return nil }

func (g *Game) Score() (int, error) { return 0, nil }
`;

/** WRONG with more imports and code beside it. */
const wrongWith = (imports: string[], code: string): string =>
  WRONG.replace(
    'package bowling\n',
    `package bowling\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join('')})\n\n${code}\n`,
  );

/**
 * The reference, spoilt (every score off by one) unless `condition`, Go code run in an init, holds: a
 * score of 0 without a flag shows the condition did not hold under grading.
 */
const referenceUnless = (condition: string): string =>
  `${reference
    .replace('import "errors"', 'import (\n\t"errors"\n\t"os"\n)')
    .replace(
      'func (g *Game) Score() (int, error) {',
      'func (g *Game) Score() (int, error) {\n\tif spoilt {\n\t\treturn -1, nil\n\t}',
    )}\nvar spoilt bool\n\nfunc init() { spoilt = !(${condition}) }\n\nvar _ = os.Getpid\n`;

describe('Go: correct and honest answers', () => {
  it('scores the references 1', async () => {
    expect(await gradeReference(bowling)).toMatchObject({ score: 1, detail: '2/2 tests passed' });
    expect(await gradeReference(exerciseTask('go/octal'))).toMatchObject({
      score: 1,
      detail: '1/1 tests passed',
    });
  });

  it('scores an honest answer that fails one test 0, naming the test, without a flag', async () => {
    const scoreless = reference.replace(
      'func (g *Game) Score() (int, error) {',
      'func (g *Game) Score() (int, error) {\n\tif len(g.rolls) >= 0 {\n\t\treturn 0, nil\n\t}',
    );
    expect(scoreless).not.toBe(reference);
    const grade = await gradeAnswer(bowling, { 'bowling.go': scoreless });
    expectCaught(grade, /^1\/2 tests passed; TestScore: failed/, false);
  });
  it('scores an answer that panics in a test 0, naming the panic and the tests that never ran, without a flag', async () => {
    const panics = WRONG.replace(
      'func (g *Game) Roll(pins int) error { return nil }',
      'func (g *Game) Roll(pins int) error { var rolls []int; return errors.New(string(rune(rolls[pins]))) }',
    ).replace('package bowling\n', 'package bowling\n\nimport "errors"\n');
    const grade = await gradeAnswer(bowling, { 'bowling.go': panics });
    expectCaught(
      grade,
      /^0\/2 tests passed; 1 never ran \(TestScore\); TestRoll: panic: runtime error: index out of range.*; exit 2$/,
      false,
    );
  });
});

describe('Go: answers that end the process or print a result', () => {
  it('os.Exit(0) in init', async () => {
    const grade = await gradeAnswer(bowling, {
      'bowling.go': wrongWith(['os'], 'func init() { os.Exit(0) }'),
    });
    expectCaught(grade, /exited with status 0 before the test runner reported/);
  });

  it('a go test summary printed from init, then exit 0', async () => {
    const fake =
      'func init() {\n\tfmt.Println("=== RUN   TestRoll\\n--- PASS: TestRoll (0.00s)\\n=== RUN   TestScore\\n--- PASS: TestScore (0.00s)\\nPASS\\nok  \\tbowling\\t0.01s")\n\tos.Exit(0)\n}';
    const grade = await gradeAnswer(bowling, { 'bowling.go': wrongWith(['fmt', 'os'], fake) });
    expectCaught(grade, /exited with status 0 before .* claims they passed/);
  });

  it("the harness's report lines, signed with whatever the process can read (stdin, environment, arguments)", async () => {
    const forge = `func init() {
	in, _ := io.ReadAll(os.Stdin)
	keys := []string{strings.TrimSpace(string(in)), strings.Join(os.Environ(), "\\n"), strings.Join(os.Args, " ")}
	lines := []string{\`{"test":"TestRoll","passed":true,"message":""}\`, \`{"test":"TestScore","passed":true,"message":""}\`, \`{"done":true,"tampering":[]}\`}
	for _, key := range keys {
		for _, line := range lines {
			mac := hmac.New(sha256.New, []byte(key))
			mac.Write([]byte(line))
			fmt.Printf("\\ngo-grading-report %s %s\\n", line, hex.EncodeToString(mac.Sum(nil)))
		}
	}
	os.Exit(0)
}`;
    const imports = ['crypto/hmac', 'crypto/sha256', 'encoding/hex', 'fmt', 'io', 'os', 'strings'];
    const grade = await gradeAnswer(bowling, { 'bowling.go': wrongWith(imports, forge) });
    expectCaught(grade, /9 report line\(s\) the test harness did not write/);
  });

  it('os.Exit(0) inside the code a test calls', async () => {
    const exit = WRONG.replace('package bowling\n', 'package bowling\n\nimport "os"\n').replace(
      'func (g *Game) Roll(pins int) error { return nil }',
      'func (g *Game) Roll(pins int) error { os.Exit(0); return nil }',
    );
    const grade = await gradeAnswer(bowling, { 'bowling.go': exit });
    expectCaught(grade, /the solution called os\.Exit\(0\)/);
  });

  it('os.Exit(0) from a goroutine while the tests run', async () => {
    const exit = WRONG.replace(
      'package bowling\n',
      'package bowling\n\nimport (\n\t"os"\n\t"time"\n)\n',
    ).replace(
      'func (g *Game) Roll(pins int) error { return nil }',
      'func (g *Game) Roll(pins int) error { go os.Exit(0); time.Sleep(time.Second); return nil }',
    );
    const grade = await gradeAnswer(bowling, { 'bowling.go': exit });
    expectCaught(grade, /os\.Exit\(0\) while the tests ran/);
  });

  it("changes the test binary's arguments so that no test runs", async () => {
    const filter =
      'func init() { os.Args = append(os.Args, "-test.run=^TestExercismGrading$/^exercise$/^$") }';
    const grade = await gradeAnswer(bowling, { 'bowling.go': wrongWith(['os'], filter) });
    expectCaught(grade, /arguments/);
  });
});

describe('Go: answers that reach into the runner', () => {
  it('an extra _test.go with a TestMain that exits 0', async () => {
    const main =
      'package bowling\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n';
    const grade = await gradeAnswer(bowling, { 'bowling.go': WRONG, 'main_test.go': main });
    expectCaught(grade, /refused: the answer writes main_test\.go, which the test runner reads/);
  });

  it('a changed test file, when the tests are visible', async () => {
    const visible = exerciseTask('go/bowling', true);
    const tests = visible.workspace!.files['bowling_test.go']!;
    const grade = await gradeAnswer(visible, {
      'bowling.go': WRONG,
      'bowling_test.go': tests.replace(
        'func TestRoll(t *testing.T) {',
        'func TestRoll(t *testing.T) {\n\treturn',
      ),
    });
    expectCaught(grade, /refused: the answer writes bowling_test\.go/);
  });

  it.each([
    ['go.mod', 'module bowling\n\ngo 1.18\n\nreplace bowling => ./elsewhere\n'],
    ['go.work', 'go 1.18\n\nuse ./elsewhere\n'],
  ])('a %s of its own', async (file, text) => {
    const grade = await gradeAnswer(bowling, { 'bowling.go': WRONG, [file]: text });
    expectCaught(grade, new RegExp(`refused: the answer writes ${file.replace('.', '\\.')}`));
  });

  it("empties the tests' case tables from init", async () => {
    const empty = `${WRONG}\nfunc init() {\n\trollTestCases = nil\n\tscoreTestCases = nil\n}\n`;
    const grade = await gradeAnswer(bowling, { 'bowling.go': empty });
    expectCaught(grade, /the solution uses the tests' own data: rollTestCases scoreTestCases/);
  });

  it.each([
    ['unsafe', ['unsafe'], '//go:linkname exit os.Exit\nfunc exit(int)\n\nfunc init() { exit(0) }'],
    ['syscall', ['syscall'], 'func init() { syscall.Exit(0) }'],
    ['testing', ['testing'], 'func init() { testing.Init() }'],
    ['runtime/debug', ['os', 'runtime/debug'], 'func init() { debug.WriteHeapDump(os.Stdout.Fd()) }'],
    ['embed', ['embed'], '//go:embed *\nvar files embed.FS'],
  ])('imports %s', async (what, imports, code) => {
    const grade = await gradeAnswer(bowling, { 'bowling.go': wrongWith(imports, code) });
    expectCaught(grade, new RegExp(`the solution imports ${what}`));
  });
});

describe('Go: what a solution cannot read while the tests run', () => {
  it.each([
    ['the test sources', 'func() bool { _, err := os.ReadFile("cases_test.go"); return err == nil }()'],
    ['the test binary', 'func() bool { _, err := os.Stat("grade.test"); return err == nil }()'],
    ['its own memory', 'func() bool { _, err := os.ReadFile("/proc/self/maps"); return err == nil }()'],
    ['standard input', 'func() bool { b, _ := io.ReadAll(os.Stdin); return len(b) > 0 }()'],
  ])('%s', async (_what, condition) => {
    const text = `${referenceUnless(condition).replace('\t"os"\n', '\t"io"\n\t"os"\n')}\nvar _ = io.EOF\n`;
    const grade = await gradeAnswer(bowling, { 'bowling.go': text });
    expectCaught(grade, /^1\/2 tests passed; TestScore: failed/, false);
  });
});
