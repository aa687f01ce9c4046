import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { Redis } from 'ioredis';
import { gitBytes } from '../system/git.ts';
import { codeKey } from './protocol.ts';

/** A folder crosses Redis as a tar, made and unpacked by git and the system's `tar`; at most this big. */
const MAX_TAR_BYTES = 64 * 1024 * 1024;

/** The variant's whole tree at `commit`, as git stores it (no links: the gate refused those). */
export async function gitArchive(gitDir: string, commit: string): Promise<Buffer> {
  return gitBytes({ gitDir }, ['archive', '--format=tar', commit], { maxBytes: MAX_TAR_BYTES });
}

/** A folder the harness wrote (the evals folder) as a tar; links are stored as links, never followed. */
export async function tarFolder(dir: string): Promise<Buffer> {
  const { stdout } = await execa('tar', ['-c', '-C', dir, '.'], {
    encoding: 'buffer',
    maxBuffer: MAX_TAR_BYTES,
  });
  return Buffer.from(stdout.buffer, stdout.byteOffset, stdout.byteLength);
}

/** Unpacks a tar of `gitArchive` or `tarFolder` into `dir` (which exists), owned by this user. */
export async function untar(tar: Buffer, dir: string): Promise<void> {
  const result = await execa('tar', ['-x', '--no-same-owner', '--no-same-permissions', '-C', dir], {
    input: tar,
    stdout: 'ignore',
    reject: false,
  });
  if (result.failed) throw new Error(`tar failed: ${result.stderr || result.shortMessage}`);
}

/**
 * Unpacks a commit's tree the coordinator published (see `gitArchive`) into `dir`, created here, with this
 * installation's node_modules linked in as a worktree has it. Throws when the tree is not in Redis (yet).
 */
export async function fetchTree(
  client: Pick<Redis, 'getBuffer'>,
  at: { runKey: string; commit: string },
  dir: string,
  nodeModules: string,
): Promise<void> {
  const tar = await client.getBuffer(codeKey(at.runKey, at.commit));
  if (tar === null) throw new Error(`the code of commit ${at.commit.slice(0, 12)} is not in Redis (yet)`);
  mkdirSync(dir, { recursive: true });
  await untar(tar, dir);
  symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir');
}
