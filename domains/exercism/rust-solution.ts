/**
 * What a Rust solution's source may not use, because it reaches around the test harness rather than
 * solving the exercise. The source is read as text, comments and strings included: none of these words has
 * a use in an exercise's solution, and a word hidden in a string would still be a word a macro could use.
 */
const FORBIDDEN: readonly { pattern: RegExp; why: string }[] = [
  {
    pattern: /\b(link_section|no_mangle|export_name)\b/,
    why: 'places code or data by symbol or section (`#[link_section]`, `#[no_mangle]`, `#[export_name]`): a constructor that runs before the test harness, or a function that replaces one the harness calls',
  },
  {
    pattern: /\b(global_asm|asm)\s*!|\barch\s*::/,
    why: 'uses assembly (`asm!`, `global_asm!`, `std::arch`)',
  },
  {
    pattern: /\bglobal_allocator\b/,
    why: 'installs a global allocator (`#[global_allocator]`), which sees every allocation the test harness makes',
  },
  {
    pattern: /\binclude(_str|_bytes)?\s*!|\binclude_(str|bytes)\b/,
    why: 'includes a file at compile time (`include!`, `include_str!`, `include_bytes!`): the tests are not the solution’s to read',
  },
];

/** Macros of the standard library a test uses; a solution's macro by one of these names would replace it. */
const STD_MACROS =
  'assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|panic|unreachable|unimplemented|todo|matches|vec|format|format_args|print|println|eprint|eprintln|write|writeln|dbg|concat|stringify|line|column|file|module_path|cfg|env|option_env|compile_error|thread_local';
const SHADOW_MACRO = new RegExp(
  `macro_rules\\s*!\\s*(r#)?(${STD_MACROS})\\b|\\bas\\s+(r#)?(${STD_MACROS})\\b`,
);

/** Why a solution source is refused as tampering, or null. */
export function solutionSourceProblem(source: string): string | null {
  for (const { pattern, why } of FORBIDDEN) if (pattern.test(source)) return `it ${why}`;
  const shadow = SHADOW_MACRO.exec(source);
  if (shadow !== null)
    return `it defines a macro named ${shadow[2] ?? shadow[4]}!, which would replace the standard one in the tests`;
  return null;
}
