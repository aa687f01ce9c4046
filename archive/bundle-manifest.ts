import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ARCHIVE_NAME, VARIANT_REPO_NAME } from './run-folder.ts';

/*
 * The manifest of a reproducibility bundle (`hyperagents archive bundle`): what run it holds, what made it,
 * and the sha256 of every file in it, so that `archive verify` can tell a file changed since.
 */

/**
 * The files of a bundle (the archive and the variant repository named as in a run folder), beside `variants.git/...` (the variant repository, file by file) and `domains/NAME/...`
 * (the data files of a `dataset:` or `lmeval:` domain, in the layout they had).
 */
export const BUNDLE = {
  manifest: 'manifest.json',
  archive: ARCHIVE_NAME,
  config: 'config.json',
  recording: 'recording.jsonl',
  simScript: 'sim-script.json',
  variants: VARIANT_REPO_NAME,
  domains: 'domains',
} as const;

/** The most data a bundle packs unless told to leave it out (`--no-data`), in bytes. */
export const MAX_DATA_BYTES = 100 * 1024 * 1024;

export const BUNDLE_FORMAT = 'hyperagents-bundle/1';

/**
 * Whether a file of `variants.git` belongs in a bundle: its refs and objects only. Its config, hooks and
 * alternates never do: a bundle comes from elsewhere, and git would act on them when it reads the repository.
 */
export const bundledRepoFile = (rel: string): boolean =>
  (rel === 'HEAD' || rel === 'packed-refs' || rel.startsWith('refs/') || rel.startsWith('objects/')) &&
  !/^objects\/info\/(http-)?alternates$/.test(rel);

/** Whether a name may be in a bundle at all: one of its files, relative, with no empty, `.` or `..` part. */
export function bundleName(name: string): boolean {
  const { variants, domains, ...files } = BUNDLE;
  if ((Object.values(files) as string[]).includes(name)) return true;
  if (name.includes('\\') || name.split('/').some((p) => p === '' || p === '.' || p === '..')) return false;
  if (name.startsWith(`${domains}/`)) return insideDomains(name);
  return name.startsWith(`${variants}/`) && bundledRepoFile(name.slice(variants.length + 1));
}

/** Whether a path of the manifest names something under `domains/` inside the bundle, and nothing outside it. */
function insideDomains(name: string): boolean {
  const parts = name.split('/');
  return (
    parts[0] === BUNDLE.domains &&
    parts.length >= 3 &&
    parts.every((p) => p !== '' && p !== '.' && p !== '..')
  );
}

/** What a domain of the run was when the bundle was made; `error` when it could not be opened then. */
export const DomainHash = z.union([
  z.object({
    name: z.string(),
    ref: z.string(),
    /** The grader's version, as the result cache keys it. */
    graderVersion: z.string(),
    /** Tasks the run used (after --eval-samples), every split. */
    tasks: z.number(),
    /** sha256 over every task's id and content hash, as the result cache hashes a task. */
    tasksHash: z.string(),
    /** sha256 of the domain's folder or file (its code, or its data file), every file in path order. */
    sourceHash: z.string(),
  }),
  z.object({ name: z.string(), ref: z.string(), error: z.string() }),
]);
export type DomainHash = z.infer<typeof DomainHash>;

const FileHash = z.object({ sha256: z.string(), bytes: z.number() });

/** A run id as `--run-id` takes it: it names a folder, so it is a plain name and nothing more. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const Manifest = z.object({
  format: z.literal(BUNDLE_FORMAT),
  createdAt: z.string(),
  run: z.object({
    id: z.string().regex(RUN_ID, 'a plain name (letters, digits, dots, dashes and underscores)'),
    /** The run's state when bundled: a bundle of a run still going holds what it had finished by then. */
    state: z.string(),
    seed: z.number(),
    metaModel: z.string(),
    taskModel: z.string(),
    simulated: z.boolean(),
    harnessVersion: z.string(),
    variants: z.number(),
  }),
  /** This project where the bundle was made: package version, source hash, git commit (or "unknown"). */
  project: z.object({ version: z.string(), build: z.string(), commit: z.string() }),
  /**
   * The model ids the ledger recorded, per role: `model` the id the run asked for, `reported` the ids its
   * provider said served the calls (e.g. "gpt-4o-2024-08-06"), with their calls. A bundle made before
   * reported ids were kept has no `reported`.
   */
  models: z.array(
    z.object({
      model: z.string(),
      role: z.string(),
      calls: z.number(),
      reported: z.array(z.object({ model: z.string(), calls: z.number() })).optional(),
    }),
  ),
  domains: z.array(DomainHash),
  /** The bundle's recording of every model response (`--record`/`--replay` file), or null. */
  recording: z.literal(BUNDLE.recording).nullable(),
  /** The bundle's copy of the `--sim-script` file, or null. */
  simScript: z.literal(BUNDLE.simScript).nullable(),
  /**
   * The data files of each `dataset:` or `lmeval:` domain, packed under `domains/NAME/`: `path` is the copy of
   * what the domain's reference names (its file or folder, or its task YAML). null: bundled with --no-data;
   * absent: made before data was packed.
   */
  data: z
    .array(
      z.object({
        domain: z.string(),
        path: z.string().refine(insideDomains, `a path under ${BUNDLE.domains}/, with no . or .. in it`),
        files: z.number(),
        bytes: z.number(),
      }),
    )
    .nullable()
    .optional(),
  /** By name; unpackBundle refuses a name that is not one the bundle's tar held. */
  files: z.record(z.string(), FileHash),
});
export type Manifest = z.infer<typeof Manifest>;

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * What differs between the files unpacked (hashed as they were written) and the manifest, one line per file,
 * in name order. Both name the same files (unpackBundle refuses a bundle where they do not). Empty when every
 * file is as the bundle was made. Pure.
 */
export function checkFiles(
  manifest: Manifest,
  unpacked: readonly { name: string; bytes: number; sha256: string }[],
): string[] {
  const problems: string[] = [];
  const found = new Map(unpacked.map((f) => [f.name, f]));
  for (const [name, want] of Object.entries(manifest.files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const got = found.get(name);
    if (got === undefined) problems.push(`${name}: missing from the bundle`);
    else if (got.sha256 !== want.sha256 || got.bytes !== want.bytes)
      problems.push(`${name}: changed since the bundle was made (its sha256 differs from the manifest's)`);
  }
  return problems;
}
