import { existsSync, readdirSync } from 'node:fs';
import { parseToml, sameToml, stringifyToml, TomlError, type TomlTable, type TomlValue } from './toml.ts';

/**
 * The `Cargo.toml` a Rust answer is graded with. The manifest is a solution file (an answer names the
 * crates it uses there), but it is also the runner's configuration: a build script, `autotests = false`,
 * a `[[test]]` path, `[patch]`, a profile with `panic = "abort"` would change what runs. So grading takes the
 * exercise's own manifest and only the answer's `[dependencies]`, each a plain version requirement.
 */

/** `[package]` keys that describe the crate and change nothing Cargo builds: the exercise's are kept. */
const PACKAGE_METADATA = new Set([
  'name',
  'version',
  'authors',
  'description',
  'license',
  'publish',
  'readme',
  'homepage',
  'repository',
  'documentation',
  'keywords',
  'categories',
]);
/** What a dependency may say: which version, and which of its features. */
const DEPENDENCY_KEYS = new Set(['version', 'features', 'default-features', 'default_features']);
/** Crates whose purpose is to run code before `main`, ahead of the test harness. */
const BEFORE_MAIN = new Set(['ctor']);

const isTable = (value: TomlValue | undefined): value is TomlTable =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export type ManifestCheck = { text: string } | { refused: string };

/** Why one `[dependencies]` entry is not a plain version requirement, or null. */
function dependencyProblem(name: string, spec: TomlValue): string | null {
  if (BEFORE_MAIN.has(name)) return `the crate ${name} runs code before the test harness starts`;
  if (typeof spec === 'string') return null;
  if (!isTable(spec)) return `dependency ${name} is neither a version nor a table`;
  const other = Object.keys(spec).filter((k) => !DEPENDENCY_KEYS.has(k));
  if (other.length > 0)
    return `dependency ${name} sets ${other.join(', ')}; only a version from the local registry, features and default-features are taken`;
  if (typeof spec.version !== 'string') return `dependency ${name} has no version`;
  if (
    spec.features !== undefined &&
    !(Array.isArray(spec.features) && spec.features.every((f) => typeof f === 'string'))
  )
    return `dependency ${name}: features must be a list of names`;
  return null;
}

/**
 * The manifest grading uses for an answer's `Cargo.toml` text: the exercise's own, with the answer's
 * `[dependencies]`; or why the answer's manifest is refused (it changes anything else Cargo reads). An
 * empty manifest stands for the exercise's own.
 */
export function gradingManifest(answerText: string, exerciseText: string): ManifestCheck {
  const exercise = parseToml(exerciseText);
  if (answerText.trim() === '') return { text: exerciseText };
  let answer: TomlTable;
  try {
    answer = parseToml(answerText);
  } catch (error) {
    if (error instanceof TomlError) return { refused: `not a manifest this grader reads (${error.message})` };
    throw error;
  }
  for (const [key, value] of Object.entries(answer)) {
    if (key === 'dependencies') {
      if (!isTable(value)) return { refused: '[dependencies] is not a table' };
      for (const [name, spec] of Object.entries(value)) {
        const problem = dependencyProblem(name, spec);
        if (problem !== null) return { refused: problem };
      }
    } else if (key === 'package') {
      if (!isTable(value)) return { refused: '[package] is not a table' };
      const own = isTable(exercise.package) ? exercise.package : {};
      const changed = Object.keys(value).filter(
        (k) => !PACKAGE_METADATA.has(k) && !sameToml(value[k], own[k]),
      );
      if (changed.length > 0)
        return {
          refused: `it sets ${changed.map((k) => `package.${k}`).join(', ')}, which only the exercise may`,
        };
    } else if (!sameToml(value, exercise[key])) {
      return {
        refused: `it changes [${key}], which only the exercise may; an answer may set [dependencies]`,
      };
    }
  }
  const { dependencies: _own, ...rest } = exercise;
  const dependencies = answer.dependencies;
  const manifest =
    isTable(dependencies) && Object.keys(dependencies).length > 0 ? { ...rest, dependencies } : rest;
  return { text: stringifyToml(manifest) };
}

/** A version as the registry folder names it (`rand-0.8.5`): numbers, and a pre-release tag if any. */
interface Version {
  parts: [number, number, number];
  pre: string;
}

function parseVersion(text: string): Version | null {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
  return m === null ? null : { parts: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? '' };
}

const compare = (a: number[], b: number[]): number => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/**
 * Whether `version` meets Cargo's requirement `req` (`"0.8"`, `"^1.2"`, `"~0.3.1"`, `"=1.0.0"`,
 * `">= 1, < 2"`, `"1.*"`, `"*"`). A pre-release meets only a requirement that names one.
 */
export function meetsRequirement(version: string, req: string): boolean {
  const v = parseVersion(version);
  if (v === null) return false;
  return req.split(',').every((one) => {
    const m =
      /^\s*(\^|~|=|>=|<=|>|<)?\s*(\*|\d+)(?:\.(\*|\d+))?(?:\.(\*|\d+))?(?:-([0-9A-Za-z.-]+))?\s*$/.exec(one);
    if (m === null) return false;
    const op = m[1] ?? '^';
    const given = [m[2], m[3], m[4]].filter((p) => p !== undefined && p !== '*').map(Number);
    if (v.pre !== '' && m[5] === undefined) return false;
    if (m[2] === '*') return true;
    const low = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
    const cmp = compare(v.parts, low);
    // The bound above a partial or caret requirement: the next version that changes what `given` fixes.
    const upper = (fixed: number): number[] => {
      const bound = given.slice(0, fixed);
      bound[fixed - 1] = (bound[fixed - 1] ?? 0) + 1;
      return [bound[0] ?? 0, bound[1] ?? 0, bound[2] ?? 0];
    };
    const wildcard = m[3] === '*' || m[4] === '*' || given.length < 3;
    switch (op) {
      case '=':
        return wildcard ? cmp >= 0 && compare(v.parts, upper(given.length)) < 0 : cmp === 0;
      case '>':
        return wildcard ? compare(v.parts, upper(given.length)) >= 0 : cmp > 0;
      case '>=':
        return cmp >= 0;
      case '<':
        return cmp < 0;
      case '<=':
        return wildcard ? compare(v.parts, upper(given.length)) < 0 : cmp <= 0;
      case '~':
        return cmp >= 0 && compare(v.parts, upper(Math.min(given.length, 2))) < 0;
      default: {
        // Caret: the left-most non-zero part given may not change (0.0.x and 0.x are the special cases).
        const firstNonZero = given.findIndex((p) => p !== 0);
        const fixed = firstNonZero < 0 ? given.length : firstNonZero + 1;
        return cmp >= 0 && compare(v.parts, upper(fixed)) < 0;
      }
    }
  });
}

/** Crate name → versions, from a registry folder of `name-version` folders (Debian's layout). */
export function registryVersions(dir: string): Map<string, string[]> {
  const crates = new Map<string, string[]>();
  if (!existsSync(dir)) return crates;
  for (const entry of readdirSync(dir)) {
    const m = /^(.+?)-(\d+\.\d+\.\d+.*)$/.exec(entry);
    if (m === null) continue;
    const name = m[1]!.replaceAll('_', '-');
    crates.set(name, [...(crates.get(name) ?? []), m[2]!]);
  }
  return crates;
}

/**
 * The crates a manifest depends on (`[dependencies]`, `[dev-dependencies]`) that `registry` cannot meet,
 * each as `name "requirement"` with what the registry has instead.
 */
export function missingCrates(manifestText: string, registry: Map<string, string[]>): string[] {
  const manifest = parseToml(manifestText);
  const missing: string[] = [];
  for (const section of ['dependencies', 'dev-dependencies']) {
    const deps = manifest[section];
    if (!isTable(deps)) continue;
    for (const [name, spec] of Object.entries(deps)) {
      const req =
        typeof spec === 'string'
          ? spec
          : isTable(spec) && typeof spec.version === 'string'
            ? spec.version
            : '*';
      const have = registry.get(name.replaceAll('_', '-')) ?? [];
      if (have.some((v) => meetsRequirement(v, req))) continue;
      missing.push(`${name} "${req}" (${have.length > 0 ? `it has ${have.join(', ')}` : 'it has none'})`);
    }
  }
  return missing;
}
