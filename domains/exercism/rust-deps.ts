import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { GradeContext } from '../grade-context.ts';
import { buildOnce, markUsed, sha16 } from './build-cache.ts';
import { parseToml, stringifyToml, type TomlValue } from './toml.ts';

/**
 * The compiled dependencies of a Rust exercise's own `Cargo.toml`, built once by the grader and copied into
 * each grading's fresh target folder, where Cargo's fingerprints find them up to date. A target folder is
 * not safe to share (Cargo trusts whatever is in it), so no grading ever writes the cache: it is built from
 * the exercise's manifest and an empty library (no answer, no test), mounted read-only, and copied.
 */

/** The output the grader keeps of the build (its errors, when it fails: then grading builds everything). */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Builds the dependencies into `$1/target`, then removes what was built of the empty library itself, so
 * the entry holds the dependencies only. Arguments: the entry's folder, the package's name.
 */
const BUILD_SCRIPT = `export CARGO_HOME="$PWD/.cargo" CARGO_TARGET_DIR="$1/target" CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0 CARGO_TERM_COLOR=never
cargo=$2 package=$3
shift 3
"$cargo" "$@" build --offline </dev/null || exit $?
"$cargo" "$@" clean --offline -p "$package" </dev/null`;

let rustcVersion: string | null | undefined;
/** `rustc -vV`, read once: an entry is kept per compiler, whose artifacts only it links. */
function installedRustc(): string | null {
  if (rustcVersion !== undefined) return rustcVersion;
  const result = spawnSync('/usr/bin/rustc', ['-vV'], {
    env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  rustcVersion = result.status === 0 ? result.stdout : null;
  return rustcVersion;
}

const isTable = (v: TomlValue | undefined): v is Record<string, TomlValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The package's name and its `[dependencies]`, when it has some; null when there is nothing to build. */
function dependenciesOf(manifest: string): { name: string; dependencies: string } | null {
  try {
    const parsed = parseToml(manifest);
    const pkg = parsed.package;
    const dependencies = parsed.dependencies;
    if (!isTable(dependencies) || Object.keys(dependencies).length === 0 || !isTable(pkg)) return null;
    if (typeof pkg.name !== 'string') return null;
    return { name: pkg.name, dependencies: stringifyToml({ dependencies }) };
  } catch {
    return null;
  }
}

/**
 * The cache entry for a manifest's `[dependencies]` under this compiler (it may not exist yet), or null.
 * Keyed by the dependencies alone, so a grading manifest (the exercise's with the answer's dependencies)
 * finds the exercise's entry when the answer kept its dependencies; an answer that changed them finds
 * none (or another exercise's entry for the very same dependencies) and Cargo builds what it lacks.
 */
export function dependencyEntry(manifest: string | undefined, cache: string): string | null {
  const deps = manifest === undefined ? null : dependenciesOf(manifest);
  const rustc = deps === null ? null : installedRustc();
  return deps === null || rustc === null ? null : path.join(cache, sha16(`${rustc}\0${deps.dependencies}`));
}

/** The entry to copy for this manifest, when it is built (marked used: trimming keeps it). */
export function builtDependencies(manifest: string | undefined, cache: string): string | null {
  const entry = dependencyEntry(manifest, cache);
  if (entry === null || !existsSync(entry)) return null;
  markUsed(entry);
  return entry;
}

/**
 * Builds the dependencies of the exercise's own manifest (`support`, as its folder holds it) once, in the
 * grading sandbox, writing only the entry's fresh folder.
 */
export function prepareDependencies(
  ctx: GradeContext,
  support: Record<string, string>,
  cache: string,
  building: Map<string, Promise<void>>,
  cargo: { file: string; args: readonly string[] },
): Promise<void> {
  const manifest = support['Cargo.toml'];
  const entry = dependencyEntry(manifest, cache);
  const name = manifest === undefined ? undefined : dependenciesOf(manifest)?.name;
  if (entry === null || name === undefined || manifest === undefined) return Promise.resolve();
  return buildOnce(building, entry, async (into) => {
    const result = await ctx.run({
      file: '/bin/sh',
      args: ['-c', BUILD_SCRIPT, 'sh', into, cargo.file, name, ...cargo.args],
      files: { 'Cargo.toml': manifest, 'src/lib.rs': '' },
      readWrite: [into],
      timeoutMs: 900_000,
      memoryMb: 4096,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
    return result.exitCode === 0;
  });
}
