/**
 * Starts the spec runner (the arguments: Node's options, then the runner and its own) under Node's
 * permission model with the grading folder, the working directory, readable: its path is known only here.
 * The folder is also allowed with every letter's case inverted, the name tsx's loader asks about to learn
 * whether the file system is case-sensitive (it is; that path does not exist). Standard input, output and
 * error are the runner's own; the launcher ends as the runner ended (its status, or its signal).
 */
import { spawnSync } from 'node:child_process';

const cwd = process.cwd();
const inverted = [...cwd].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
const child = spawnSync(
  process.execPath,
  [`--allow-fs-read=${cwd}`, `--allow-fs-read=${inverted}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (child.error) {
  process.stderr.write(`the spec runner did not start: ${child.error.message}\n`);
  process.exit(1);
}
if (child.signal) process.kill(process.pid, child.signal);
process.exit(child.status ?? 1);
