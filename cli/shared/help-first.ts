/**
 * Whether a command line asks for `--help` (or `-h`) or `--version` before any `--`: a command answers these
 * from its light parser alone, before it loads the modules its work needs (docs/development.md, "Start-up").
 */
export function asksFor(argv: readonly string[], what: 'help' | 'version'): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  return what === 'help' ? words.includes('--help') || words.includes('-h') : words.includes('--version');
}
