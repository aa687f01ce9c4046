import { execFile, spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { gitBytes } from '../system/git.ts';
import { codeKey } from './protocol.ts';

const execFileAsync = promisify(execFile);

/** A folder crosses Redis as a tar, made and unpacked by git and the system's `tar`; at most this big. */
const MAX_TAR_BYTES = 64 * 1024 * 1024;

/** The variant's whole tree at `commit`, as git stores it (no links: the gate refused those). */
export async function gitArchive(gitDir: string, commit: string): Promise<Buffer> {
  return gitBytes({ gitDir }, ['archive', '--format=tar', commit], { maxBytes: MAX_TAR_BYTES });
}

/** A folder the harness wrote (the evals folder) as a tar; links are stored as links, never followed. */
export async function tarFolder(dir: string): Promise<Buffer> {
  const { stdout } = await execFileAsync('tar', ['-c', '-C', dir, '.'], {
    encoding: 'buffer',
    maxBuffer: MAX_TAR_BYTES,
  });
  return stdout;
}

/** Unpacks a tar of `gitArchive` or `tarFolder` into `dir` (which exists), owned by this user. */
export function untar(tar: Buffer, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-x', '--no-same-owner', '--no-same-permissions', '-C', dir], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed: ${stderr.trim()}`))));
    child.stdin.end(tar);
  });
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
