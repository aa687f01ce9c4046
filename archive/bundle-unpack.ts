import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE, bundleName, Manifest } from './bundle-manifest.ts';
import { BadTarError, readTarGz, type UnpackedFile, type UnpackLimits } from './tar-read.ts';

/*
 * A bundle comes from someone else (a paper, an issue), so reading one treats every byte of it as hostile:
 * the tar is unpacked within limits, and the manifest may name only the files the tar held.
 */

const MB = 1024 * 1024;

/**
 * What a bundle may unpack to unless told otherwise: far above any honest bundle (one of a 500-variant run
 * unpacks to a few hundred MB at most, its largest file its archive), far below a disk filled on purpose.
 */
export const DEFAULT_UNPACK_LIMITS: UnpackLimits = {
  fileBytes: 2048 * MB,
  totalBytes: 4096 * MB,
  ratio: 200,
  entries: 200_000,
};

/** The largest manifest.json and config.json read, in bytes: each is parsed whole. */
export const MAX_JSON_BYTES = 32 * MB;

/** A file that is not a bundle, or one this version cannot read; the message says why. */
export class BadBundleError extends Error {
  override name = 'BadBundleError';
}

export interface UnpackedBundle {
  manifest: Manifest;
  /** Every file the tar held, manifest.json included, with its size and sha256 as it was written. */
  files: UnpackedFile[];
  /** The sha256 of the bundle file and of its manifest.json. */
  sha256: { bundle: string; manifest: string };
}

/**
 * Unpacks a bundle into `dir` (empty) within `limits` and reads its manifest, which must name exactly the
 * files the tar held (manifest.json aside), each a name a bundle holds. Throws a BadBundleError saying what is
 * wrong; a TarLimitError (see readTarGz) for a bundle over a limit; an AbortError once `signal` aborts.
 */
export async function unpackBundle(
  file: string,
  dir: string,
  limits: UnpackLimits,
  signal?: AbortSignal,
): Promise<UnpackedBundle> {
  let unpacked: Awaited<ReturnType<typeof readTarGz>>;
  try {
    unpacked = await readTarGz(file, dir, limits, signal);
  } catch (error) {
    if (error instanceof BadTarError) throw new BadBundleError(error.message);
    throw error;
  }
  const { files } = unpacked;
  const stray = files.find((f) => !bundleName(f.name));
  if (stray !== undefined)
    throw new BadBundleError(
      `it holds ${stray.name}, which no bundle holds (only refs and objects of variants.git, and data files under ${BUNDLE.domains}/)`,
    );
  const manifestFile = files.find((f) => f.name === BUNDLE.manifest);
  if (manifestFile === undefined)
    throw new BadBundleError(
      `it holds no ${BUNDLE.manifest}, so it was not made by hyperagents archive bundle`,
    );
  const manifest = readManifest(dir, manifestFile.bytes);
  const held = new Set(files.map((f) => f.name));
  const listed = Object.keys(manifest.files);
  // Checked before any name is used: a name that leads out would read a file of this disk.
  const foreign = listed.find((name) => !bundleName(name));
  if (foreign !== undefined)
    throw new BadBundleError(
      `its ${BUNDLE.manifest} names ${JSON.stringify(foreign)}, which is not a file a bundle holds ` +
        '(a name relative to the bundle, with no . or .. in it)',
    );
  const missing = listed.find((name) => !held.has(name));
  if (missing !== undefined)
    throw new BadBundleError(`its ${BUNDLE.manifest} lists ${missing}, which the bundle does not hold`);
  const unlisted = files.find((f) => f.name !== BUNDLE.manifest && !(f.name in manifest.files));
  if (unlisted !== undefined)
    throw new BadBundleError(`it holds ${unlisted.name}, which its ${BUNDLE.manifest} does not list`);
  const named = [BUNDLE.config, BUNDLE.archive, manifest.recording, manifest.simScript];
  const absent = named.find((name) => name !== null && !held.has(name));
  if (absent != null) throw new BadBundleError(`it holds no ${absent}, which every bundle of its kind holds`);
  return { manifest, files, sha256: { bundle: unpacked.sha256, manifest: manifestFile.sha256 } };
}

function readManifest(dir: string, bytes: number): Manifest {
  if (bytes > MAX_JSON_BYTES)
    throw new BadBundleError(`its ${BUNDLE.manifest} is ${bytes} bytes long, more than any bundle's`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(dir, BUNDLE.manifest), 'utf8'));
  } catch (error) {
    throw new BadBundleError(`its ${BUNDLE.manifest} is not JSON (${(error as Error).message})`);
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadBundleError(
      `its ${BUNDLE.manifest} is not one this version reads (${issue?.path.join('.') || 'the manifest'}: ${issue?.message})`,
    );
  }
  return parsed.data;
}
