import { describe, expect, it } from 'vitest';
import { rust } from '../../../domains/index.ts';
import { exerciseTask, expectCaught, gradeAnswer, gradeReference } from './probes.ts';

/**
 * Answers to Rust exercises that try to score without solving them. Each is a wrong bowling solution (or
 * acronym) plus one trick; each must score 0 with a detail that says why, flagged as tampering where the
 * trick is an attempt on the grader. The references must still score 1.
 */

const status = rust.toolchain();
if (!status.ok)
  throw new Error(`these tests need ${status.missing}: apt-get install ${status.packages.join(' ')}`);

const bowling = exerciseTask('rust/bowling');
const acronym = exerciseTask('rust/acronym');
const gigasecond = exerciseTask('rust/gigasecond');
const MANIFEST = bowling.workspace!.files['Cargo.toml']!;

/** A bowling game that never scores: wrong for most of the tests. `extra` is added inside `new()`. */
const wrong = (extra = '', items = ''): string => `#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    NotEnoughPinsLeft,
    GameComplete,
}

pub struct BowlingGame {}

impl BowlingGame {
    pub fn new() -> Self {
        ${extra}
        BowlingGame {}
    }

    pub fn roll(&mut self, _pins: u16) -> Result<(), Error> {
        Ok(())
    }

    pub fn score(&self) -> Option<u16> {
        None
    }
}
${items}`;

const grade = (files: Record<string, string>) => gradeAnswer(bowling, files);
const TIMEOUT = 300_000;

describe('rust: the references pass and a wrong answer fails plainly', () => {
  it.each([
    ['bowling', bowling, 31],
    ['acronym', acronym, 10],
    ['gigasecond', gigasecond, 5],
  ] as const)(
    '%s: the reference passes every test',
    async (_name, task, tests) => {
      expect(await gradeReference(task)).toMatchObject({
        score: 1,
        detail: `${tests}/${tests} tests passed`,
      });
    },
    TIMEOUT,
  );

  it(
    'an honest wrong answer scores 0 without a tampering flag',
    async () => {
      expectCaught(await grade({ 'src/lib.rs': wrong() }), /^\d+\/31 tests passed; /, false);
    },
    TIMEOUT,
  );

  it(
    'an answer that adds a crate from the local registry in its Cargo.toml is graded with it',
    async () => {
      const lib = `${bowling.answer.reference['src/lib.rs']}\npub fn pick() -> bool { use rand::Rng; rand::thread_rng().gen_bool(1.0) }\n`;
      const manifest = `${MANIFEST}\n[dependencies]\nrand = "0.8"\n`;
      expect(await grade({ 'src/lib.rs': lib, 'Cargo.toml': manifest })).toMatchObject({ score: 1 });
    },
    TIMEOUT,
  );
});

describe('rust: files the runner reads are refused', () => {
  it.each([
    [
      'a build script that rewrites the tests',
      { 'build.rs': 'fn main() { std::fs::write("tests/bowling.rs", "").unwrap(); }' },
      /build\.rs/,
    ],
    [
      'a cargo config whose runner is true',
      { '.cargo/config.toml': '[target.x86_64-unknown-linux-gnu]\nrunner = "true"\n' },
      /\.cargo\/config\.toml/,
    ],
    ['a test file of its own', { 'tests/extra.rs': '#[test] fn ok() {}' }, /tests\/extra\.rs/],
    [
      'autotests = false in Cargo.toml',
      { 'Cargo.toml': MANIFEST.replace('[package]', '[package]\nautotests = false') },
      /package\.autotests/,
    ],
    [
      'a [[test]] path in Cargo.toml',
      { 'Cargo.toml': `${MANIFEST}\n[[test]]\nname = "bowling"\npath = "src/lib.rs"\n`, 'src/fake.rs': '' },
      /\[test\]/,
    ],
    [
      'a profile that aborts on panic',
      { 'Cargo.toml': `${MANIFEST}\n[profile.dev]\npanic = "abort"\n` },
      /\[profile\]/,
    ],
    [
      'a path dependency',
      { 'Cargo.toml': `${MANIFEST}\n[dependencies]\nfake = { path = "fake" }\n` },
      /sets path/,
    ],
    [
      'the ctor crate',
      { 'Cargo.toml': `${MANIFEST}\n[dependencies]\nctor = "0.1"\n` },
      /before the test harness/,
    ],
  ])('%s', async (_what, files, why) => {
    expectCaught(await grade({ 'src/lib.rs': wrong(), ...files }), why);
  });

  it.each([
    [
      'a constructor in .init_array',
      wrong(
        '',
        '#[used]\n#[link_section = ".init_array"]\nstatic INIT: extern "C" fn() = { extern "C" fn f() { std::process::exit(0) } f };\n',
      ),
      /link_section/,
    ],
    [
      'a libc function replaced by #[no_mangle]',
      wrong('', '#[no_mangle]\npub extern "C" fn isatty(_fd: i32) -> i32 { 0 }\n'),
      /no_mangle/,
    ],
    [
      'its own assert_eq!',
      wrong('', '#[macro_export]\nmacro_rules! assert_eq { ($($t:tt)*) => { () }; }\n'),
      /assert_eq!/,
    ],
    ['the tests included at compile time', wrong('let _ = include_str!("../tests/bowling.rs");'), /include/],
    [
      'a global allocator',
      wrong('', '#[global_allocator]\nstatic A: std::alloc::System = std::alloc::System;\n'),
      /global allocator/,
    ],
    ['inline assembly', wrong('unsafe { std::arch::asm!("nop") };'), /assembly/],
  ])('source with %s', async (_what, lib, why) => {
    expectCaught(await grade({ 'src/lib.rs': lib }), why);
  });
});

describe('rust: a solution cannot end the run early or write its result', () => {
  it(
    'printing a fake summary and exiting 0',
    async () => {
      // Written to stdout itself: println! inside a test is captured by libtest, and lost on exit.
      const lib = wrong(
        'use std::io::Write; let _ = std::io::stdout().write_all(b"test result: ok. 1000 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\\n"); std::process::exit(0);',
      );
      expectCaught(await grade({ 'src/lib.rs': lib }), /exited with status 0 before .* claims they passed/);
    },
    TIMEOUT,
  );

  it(
    'exiting 0 once a few tests have passed',
    async () => {
      const lib = wrong().replace(
        'None\n    }',
        'std::thread::sleep(std::time::Duration::from_millis(300)); std::process::exit(0)\n    }',
      );
      expectCaught(await grade({ 'src/lib.rs': lib }), /exited with status 0 before/);
    },
    TIMEOUT,
  );

  it(
    'a panic hook that exits 0 when an assertion fails',
    async () => {
      const lib = wrong('std::panic::set_hook(Box::new(|_| std::process::exit(0)));');
      expectCaught(await grade({ 'src/lib.rs': lib }), /exited with status 0 before/);
    },
    TIMEOUT,
  );

  it(
    'printing result lines in the harness format, for every test, and exiting 0',
    async () => {
      const names = bowling.answer.tests['tests/bowling.rs']!.match(/(?<=fn )\w+/g)!;
      const lines = names.map((n) => `#graded-test ok 0123456789abcdef bowling::${n} `).join('\\n');
      const lib = wrong(
        `use std::io::Write; let _ = std::io::stdout().write_all(b"\\n${lines}\\n"); std::process::exit(0);`,
      );
      expectCaught(await grade({ 'src/lib.rs': lib }), /result line the harness did not write/);
    },
    TIMEOUT,
  );

  it(
    'forking copies of the test process, each returning another guess for the test to check',
    async () => {
      const lib = wrong().replace(
        'None\n    }',
        'let child = unsafe { libc::fork() };\n        if child == 0 { Some(0) } else { None }\n    }',
      );
      const manifest = `${MANIFEST}\n[dependencies]\nlibc = "0.2"\n`;
      expectCaught(await grade({ 'src/lib.rs': lib, 'Cargo.toml': manifest }), /reported more than once/);
    },
    TIMEOUT,
  );

  it(
    'aborting the test process scores 0 and says the tests never reported',
    async () => {
      const lib = wrong().replace('None\n    }', 'std::process::abort()\n    }');
      expectCaught(await grade({ 'src/lib.rs': lib }), /never ran[\s\S]*(exit 134|SIGABRT)/, false);
    },
    TIMEOUT,
  );

  it(
    'tests of its own that pass are not the exercise’s tests',
    async () => {
      const own = Array.from({ length: 40 }, (_, i) => `#[test] fn t${i}() {}`).join('\n');
      const lib = wrong('', `#[cfg(test)]\nmod own {\n${own}\n}\n`);
      expectCaught(await grade({ 'src/lib.rs': lib }), /^\d+\/31 tests passed/, false);
    },
    TIMEOUT,
  );

  it(
    'an item named like the prelude (`None`) does not replace it in the tests',
    async () => {
      const lib = wrong('', '#[allow(non_upper_case_globals)]\npub const None: Option<u16> = Some(0);\n');
      expectCaught(await grade({ 'src/lib.rs': lib }), /did not run/, false);
    },
    TIMEOUT,
  );

  it(
    'reading the hidden tests at run time to look up the answers finds nothing',
    async () => {
      const lib = `pub fn abbreviate(phrase: &str) -> String {
    let tests = std::fs::read_to_string("tests/acronym.rs").unwrap_or_default();
    let after = tests.split(&format!("{:?}", phrase)).nth(1).unwrap_or("");
    after.split("expected = \\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("").to_string()
}
`;
      expectCaught(await gradeAnswer(acronym, { 'src/lib.rs': lib }), /^0\/10 tests passed/, false);
    },
    TIMEOUT,
  );
});
