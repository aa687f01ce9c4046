import { describe, expect, it } from 'vitest';
import { catchTestNames, readCatchReport } from './cpp-report.ts';
import { checkPreprocessed, identifiers, tokens } from './cpp-source-check.ts';

const root = '/tmp/exercism/space-age';
const layout = { root, exerciseFiles: ['space_age_test.cpp', 'test/catch.hpp'] };
const reserved = new Set(['REQUIRE', 'TEST_CASE', 'TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED', 'Catch']);

/** The test file's unit as `g++ -E -dD` writes it, with `header` as the solution header's lines. */
const testUnit = (header: string) =>
  [
    `# 0 "${root}/space_age_test.cpp"`,
    '# 0 "<built-in>"',
    '#define __STDC__ 1',
    '# 0 "<command-line>"',
    '#define EXERCISM_RUN_ALL_TESTS 1',
    `# 1 "${root}/space_age_test.cpp"`,
    `# 1 "${root}/space_age.h" 1`,
    header,
    `# 2 "${root}/space_age_test.cpp" 2`,
    `# 1 "${root}/test/catch.hpp" 1`,
    '#define REQUIRE(...) INTERNAL_CATCH_TEST( "REQUIRE", Catch::ResultDisposition::Normal, __VA_ARGS__ )',
    'namespace Catch { int exit(int); }',
    `# 3 "${root}/space_age_test.cpp" 2`,
    'static void test() { Catch::AssertionHandler h; }',
  ].join('\n');

describe('checking the preprocessed test file', () => {
  it.each([
    ['an honest header', 'namespace space_age { class space_age { double on_earth() const; }; }', []],
    ['its own include guard', '#define SPACE_AGE_H', []],
    ['a diagnostic pragma', '#pragma GCC diagnostic ignored "-Wshadow"', []],
    ['a string that names Catch', 'const char* s = "Catch::exit main()";', []],
    ['a member called main_diagonal', 'int main_diagonal();', []],
    ['using namespace std', 'using namespace std;', []],
    [
      "Catch's include guard",
      '#define TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED',
      ['#defines TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED, which Catch or the tests use'],
    ],
    ['an undefined macro of Catch', '#undef REQUIRE', ['#undefs REQUIRE, which Catch or the tests use']],
    [
      'the test framework included',
      `# 1 "${root}/test/catch.hpp" 1\n# 2 "${root}/space_age.h" 2`,
      ['includes test/catch.hpp'],
    ],
    [
      'a file outside the exercise',
      '# 1 "/dev/stdin" 1\n# 2 "/tmp/exercism/space-age/space_age.h" 2',
      ['includes /dev/stdin, outside the exercise'],
    ],
    [
      '#line',
      `# 1 "${root}/test/catch.hpp"\n#define X 1`,
      [`renames its lines as "${root}/test/catch.hpp"'s (#line)`],
    ],
    ['another pragma', '#pragma redefine_extname f g', ['uses #pragma redefine_extname f g']],
    [
      'a constructor',
      '__attribute__ ((constructor (101))) static void f() {}',
      ['uses the attribute constructor'],
    ],
    ['a C++11 attribute', '[[gnu::__section__(".init_array")]] int x;', ['uses the attribute section']],
    ['main', 'int main (int, char**) { return 0; }', ['declares main (the test main is the grader’s)']],
    ['exit', 'static int x = (std::exit(0), 0);', ['calls exit (ending the test process early)']],
    [
      'Catch by name',
      'int f() { return Catch::x; }',
      ["names Catch's namespace (the test framework is not the solution's to use)"],
    ],
    [
      'namespace std',
      'namespace std { bool operator==(int, int); }',
      ['adds to namespace std (which decides how the tests compare values)'],
    ],
    [
      'a specialisation in std',
      'template <> bool std::equal_to<int>::operator()(const int&, const int&) const { return true; }',
      ['specialises a template of namespace std (which decides how the tests compare values)'],
    ],
  ])('%s', (_what, header, refused) => {
    expect(checkPreprocessed(testUnit(header), layout, reserved)).toEqual(refused);
  });

  it('leaves what Catch and the test file themselves contain to them', () => {
    expect(checkPreprocessed(testUnit(''), layout, reserved)).toEqual([]);
  });

  it('refuses text without line markers', () => {
    expect(checkPreprocessed('int x;', layout)).toEqual(['the preprocessed source has no line markers']);
  });
});

describe('reading C++ tokens', () => {
  it('drops literals and comments, keeps identifiers and punctuators', () => {
    expect(tokens('int x = u8"Catch" + R"d(main())d" /* exit */ + 1\'000; // abort\na::b')).toEqual([
      'int',
      'x',
      '=',
      '+',
      '+',
      ';',
      'a',
      '::',
      'b',
    ]);
    expect([...identifiers('#define A(x) B "C" x')]).toEqual(['define', 'A', 'x', 'B']);
  });
});

describe('the test cases of a Catch test file', () => {
  it('are every TEST_CASE grading compiles, by the names Catch reports', () => {
    const source = `#include "x.h"
TEST_CASE("first", "[tag]") {}
// TEST_CASE("commented out")
#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE(
    "a \\"quoted\\" name") {}
SCENARIO("a scenario") {}
TEST_CASE_METHOD(Fixture, "with a fixture") {}
#endif
#if defined(EXERCISM_INCLUDE_BENCHMARK)
TEST_CASE("benchmark") {}
#else
TEST_CASE("no benchmark") {}
#endif`;
    expect(catchTestNames(source)).toEqual([
      'first',
      'a "quoted" name',
      'Scenario: a scenario',
      'with a fixture',
      'no benchmark',
    ]);
  });
});

describe("the report main's line", () => {
  const token = 'a'.repeat(32);
  it('is read only where it carries the token', () => {
    const stdout = `All tests passed (2 assertions in 2 test cases)\n${'b'.repeat(32)} {"tests":[]}\n${token} {"tests":[{"name":"x","passed":true},{"name":"y","passed":false,"message":"REQUIRE( 1 == 2 )"}]}\n`;
    expect(readCatchReport(stdout, token)).toEqual({
      tests: [
        { name: 'x', passed: true },
        { name: 'y', passed: false, message: 'REQUIRE( 1 == 2 )' },
      ],
      tampering: [],
    });
    expect(readCatchReport('All tests passed (2 assertions in 2 test cases)\n', token)).toBeNull();
  });

  it('written twice is tampering, and a refusal on it is too', () => {
    const line = `${token} {"tests":[]}`;
    expect(readCatchReport(`${line}\n${line}\n`, token)?.tampering).toEqual([
      'the test process reported more than once',
    ]);
    expect(readCatchReport(`${token} {"refused":["x.h declares main"]}\n`, token)).toEqual({
      tests: [],
      tampering: ['x.h declares main'],
    });
  });
});
