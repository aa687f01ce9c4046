/**
 * Worker threads without the TypeScript loader. A worker inherits the runner's `--import tsx`, and tsx
 * costs each worker about 15 MiB and a fifth of a second to load: Exercism's parallel-letter-frequency
 * starts 50 workers in one test, which then passed the memory limit (835 MiB resident) and the time
 * limit. Jest's own workers load nothing extra, so a worker whose script plain Node can run (a `.js`,
 * `.cjs` or `.mjs` file without ES module syntax in a CommonJS package) gets the runner's options without
 * the loader. TypeScript workers, ES module syntax that only tsx makes CommonJS, `eval` workers and workers
 * given their own `execArgv` are left as they are.
 */
import { readFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import workerThreads from 'node:worker_threads';

const PLAIN_SCRIPT = /\.(c|m)?js$/;
const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s)/m;

const TSX = /[\\/]tsx[\\/]/;

/** Options a worker refuses because they are the process's: the heap limit, the permission model's. */
const PROCESS_WIDE = /^--(max-old-space-size|permission|experimental-permission|allow-|disable-warning)/;

/**
 * `execArgv` without `--import <tsx>` (either spelling), and without the options a worker refuses
 * (`--max-old-space-size`: its heap is bounded by the process's memory limit; the permission model's,
 * which a worker inherits).
 */
export function withoutLoader(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (arg === '--import' && TSX.test(execArgv[i + 1] ?? '')) i++;
    else if (!(arg.startsWith('--import=') && TSX.test(arg)) && !PROCESS_WIDE.test(arg)) out.push(arg);
  }
  return out;
}

/** Whether plain Node runs `file` as the spec's package would (type `module` or `commonjs`). */
export function runsWithoutLoader(file: string, packageIsModule: boolean): boolean {
  if (!PLAIN_SCRIPT.test(file)) return false;
  if (file.endsWith('.mjs') || (file.endsWith('.js') && packageIsModule)) return true;
  try {
    return !ESM_SYNTAX.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

function scriptPath(script: unknown): string | null {
  if (script instanceof URL) return script.protocol === 'file:' ? fileURLToPath(script) : null;
  if (typeof script !== 'string') return null;
  if (script.startsWith('file:')) return fileURLToPath(script);
  return path.resolve(script);
}

/** Replaces `worker_threads.Worker` (for `require` and `import` alike) with one that drops tsx when it can. */
export function plainWorkers(packageIsModule: boolean): void {
  const Original = workerThreads.Worker;
  class Worker extends Original {
    constructor(script: string | URL, options: workerThreads.WorkerOptions = {}) {
      const file = options.eval === true || options.execArgv ? null : scriptPath(script);
      super(
        script,
        file !== null && runsWithoutLoader(file, packageIsModule)
          ? { ...options, execArgv: withoutLoader(process.execArgv) }
          : options,
      );
    }
  }
  workerThreads.Worker = Worker;
  module.syncBuiltinESMExports();
}
