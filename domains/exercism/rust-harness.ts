import type { CommandResult } from '../grade-context.ts';
import type { TestOutcome, TestReport } from './language.ts';
import { siphash24 } from './siphash.ts';

/**
 * How a Rust test reports its outcome where a solution cannot forge it. Each `#[test]` of the exercise is
 * wrapped (rust-tests.ts) to call `__graded_harness::run`, which runs the body, decides the outcome itself
 * (returned at its end, `Ok`, or the expected panic) and writes one line:
 *
 *     #graded-test <ok|fail> <tag> <crate::module::test> <message>
 *
 * `tag` is SipHash-2-4 of `<ok|fail>\0<name>` under a 128-bit key that is this grading's token. The test
 * process reads the key from its standard input before any test calls the solution (every wrapper waits
 * for that read), keeps it only in two atomics, and never writes it anywhere: no file, variable or argument
 * holds it, and the key of one grading is worthless for the next. A line with the mark and a wrong tag is
 * a forgery.
 */
export const RESULT_MARK = '#graded-test';
/** Lines the grading script writes before any solution code runs: each test binary's list, then the run. */
export const LIST_MARK = '#graded-list';
export const RUN_MARK = '#graded-run';

/**
 * The harness module appended to each test file. No `unsafe`, no heap copy of the key, and only absolute
 * `::std` paths, so nothing a test file imports (a solution's glob) changes what it calls.
 */
export const HARNESS_SOURCE = `
#[doc(hidden)]
#[allow(dead_code, unused_imports, unused_qualifications, missing_docs, deprecated, clippy::all)]
mod __graded_harness {
    use ::std::io::{Read as _, Write as _};
    use ::std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    static READ: ::std::sync::Once = ::std::sync::Once::new();
    static HAVE: AtomicBool = AtomicBool::new(false);
    static K0: AtomicU64 = AtomicU64::new(0);
    static K1: AtomicU64 = AtomicU64::new(0);

    /// Reads the key (32 hex digits on standard input) once, before the first test calls the solution.
    fn key() -> ::std::option::Option<(u64, u64)> {
        READ.call_once(|| {
            // Reads of at least stdin's buffer size (8 KiB) bypass that buffer: the key never reaches the heap.
            let mut buf = [0u8; 32];
            let mut chunk = [0u8; 8192];
            let mut n = 0;
            let input = ::std::io::stdin();
            let mut input = input.lock();
            while n < buf.len() {
                match input.read(&mut chunk) {
                    ::std::result::Result::Ok(0) => break,
                    ::std::result::Result::Ok(k) => {
                        let take = k.min(buf.len() - n);
                        buf[n..n + take].copy_from_slice(&chunk[..take]);
                        n += take;
                    }
                    ::std::result::Result::Err(e) if e.kind() == ::std::io::ErrorKind::Interrupted => {}
                    ::std::result::Result::Err(_) => break,
                }
            }
            let hex = |part: &[u8]| {
                part.iter().try_fold(0u64, |acc, &c| (c as char).to_digit(16).map(|d| (acc << 4) | d as u64))
            };
            if n == buf.len() {
                if let (::std::option::Option::Some(a), ::std::option::Option::Some(b)) = (hex(&buf[..16]), hex(&buf[16..])) {
                    K0.store(a, Ordering::SeqCst);
                    K1.store(b, Ordering::SeqCst);
                    HAVE.store(true, Ordering::SeqCst);
                }
            }
        });
        if HAVE.load(Ordering::SeqCst) {
            ::std::option::Option::Some((K0.load(Ordering::SeqCst), K1.load(Ordering::SeqCst)))
        } else {
            ::std::option::Option::None
        }
    }

    fn report(name: &str, passed: bool, message: &str) {
        let (k0, k1) = match key() {
            ::std::option::Option::Some(k) => k,
            ::std::option::Option::None => return,
        };
        let status = if passed { "ok" } else { "fail" };
        let mut hasher = ::std::hash::SipHasher::new_with_keys(k0, k1);
        ::std::hash::Hasher::write(&mut hasher, status.as_bytes());
        ::std::hash::Hasher::write(&mut hasher, &[0]);
        ::std::hash::Hasher::write(&mut hasher, name.as_bytes());
        let tag = ::std::hash::Hasher::finish(&hasher);
        let message: ::std::string::String =
            message.chars().map(|c| if c.is_control() { ' ' } else { c }).take(300).collect();
        let line = ::std::format!("\\n${RESULT_MARK} {} {:016x} {} {}\\n", status, tag, name, message);
        let out = ::std::io::stdout();
        let mut out = out.lock();
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    }

    /// What a test function returned: \`()\`, or a \`Result\` that must be \`Ok\`.
    pub trait Passed {
        fn passed(&self) -> bool;
    }
    impl Passed for () {
        fn passed(&self) -> bool {
            true
        }
    }
    impl<T, E> Passed for ::std::result::Result<T, E> {
        fn passed(&self) -> bool {
            self.is_ok()
        }
    }

    /// Runs one test's body and reports its outcome; the test then ends as it would have (the same value,
    /// or the same panic resumed), so libtest's own verdict and exit status stay what they were.
    pub fn run<R: Passed>(
        module: &str,
        name: &str,
        panics: ::std::option::Option<&str>,
        body: impl ::std::ops::FnOnce(&::std::cell::Cell<bool>) -> R,
    ) -> R {
        let _ = key();
        let name = ::std::format!("{}::{}", module, name);
        let done = ::std::cell::Cell::new(false);
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| body(&done))) {
            ::std::result::Result::Ok(value) => {
                let (passed, why) = match panics {
                    ::std::option::Option::Some(_) => (false, "the test did not panic as it should"),
                    ::std::option::Option::None if !done.get() => (false, "the test returned before its end"),
                    ::std::option::Option::None if !value.passed() => (false, "the test returned an error"),
                    ::std::option::Option::None => (true, ""),
                };
                report(&name, passed, why);
                value
            }
            ::std::result::Result::Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| ::std::string::ToString::to_string(s))
                    .or_else(|| payload.downcast_ref::<::std::string::String>().cloned());
                let passed = match (panics, &message) {
                    (::std::option::Option::Some(""), _) => true,
                    (::std::option::Option::Some(expected), ::std::option::Option::Some(m)) => m.contains(expected),
                    _ => false,
                };
                report(&name, passed, message.as_deref().unwrap_or("the test panicked"));
                ::std::panic::resume_unwind(payload)
            }
        }
    }
}
`;

const RESULT_LINE = new RegExp(`${RESULT_MARK} (ok|fail) ([0-9a-f]{16}) (\\S+) ?([^\\n]*)`, 'g');

/** The tag the harness writes for `status` of test `name` under `token` (32 hex digits). */
export function resultTag(token: string, status: 'ok' | 'fail', name: string): string {
  const key = (part: string) => BigInt(`0x${part}`);
  const bytes = new TextEncoder().encode(`${status}\0${name}`);
  return siphash24(key(token.slice(0, 16)), key(token.slice(16, 32)), bytes)
    .toString(16)
    .padStart(16, '0');
}

/**
 * The tests each binary listed before any solution code ran (`crate::module::test`), from the output up to
 * the run mark; null when the run never began (the build failed).
 */
export function listedTests(stdout: string): string[] | null {
  const run = stdout.indexOf(`\n${RUN_MARK}\n`);
  const head = stdout.startsWith(`${RUN_MARK}\n`) ? '' : run < 0 ? null : stdout.slice(0, run);
  if (head === null) return null;
  const names: string[] = [];
  let crate = '';
  for (const line of head.split('\n')) {
    if (line.startsWith(`${LIST_MARK} `)) crate = line.slice(LIST_MARK.length + 1).trim();
    const m = /^(\S+): test$/.exec(line);
    if (m !== null && crate !== '') names.push(`${crate}::${m[1]}`);
  }
  return names;
}

/**
 * The report of a grading run: the tests the harness reported, passed only with a correctly tagged `ok`.
 * A line with the mark and a wrong tag, or a second line for one test, is tampering. When the run exited 0 while a listed
 * test never reported, the process was ended early: there is no report (judgeRun says so).
 */
export function readHarnessReport(result: CommandResult, token: string): TestReport | null {
  const listed = listedTests(result.stdout);
  if (listed === null) return null;
  const runOutput = result.stdout.slice(result.stdout.indexOf(RUN_MARK));
  const outcome = new Map<string, TestOutcome>();
  const forged: string[] = [];
  for (const m of runOutput.matchAll(RESULT_LINE)) {
    const [, status, tag, name, message] = m as unknown as [string, 'ok' | 'fail', string, string, string];
    if (tag !== resultTag(token, status, name)) {
      forged.push(`a result line the harness did not write (${status} ${name})`);
      continue;
    }
    // One run of a test reports once: a second line means a copy of the process (fork) reported too, as a
    // solution that tries several answers in forked copies, each checked by the test, would.
    if (outcome.has(name)) forged.push(`${name} reported more than once (a copy of the test process)`);
    outcome.set(name, { name, passed: status === 'ok', ...(status === 'ok' ? {} : { message }) });
  }
  if (forged.length > 0) return { tests: [...outcome.values()], tampering: [...new Set(forged)] };
  // A listed test without a result failed to report: with exit 0 the process was ended early on purpose;
  // otherwise the exit status already fails the run, and the exercise's tests show as never ran.
  if (result.exitCode === 0 && listed.some((name) => !outcome.has(name))) return null;
  return { tests: [...outcome.values()], tampering: [] };
}
