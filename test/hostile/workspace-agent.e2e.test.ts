import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectedWorkspace,
  createGradeContext,
  gradeWorkspace,
  type TaskPool,
  type TaskRequest,
  type WorkerReply,
} from '../../harness/evaluation/index.ts';
import { bwrapAvailable, resolveSandbox } from '../../harness/process/index.ts';
import { addDomain, addTask, STARTING_FILES, startWorkspacePool } from './workspace-fixture.ts';

/**
 * A hostile TaskAgent on workspace tasks, under bubblewrap: whatever it leaves in its workspace (links out
 * of it, a FIFO, a huge file, 100k files, a setuid file, a `.git` with hooks and config) or does while the
 * harness collects it (swapping the folder, or a folder inside it, for a link), the harness reads nothing
 * through a link, never hangs, writes and removes nothing outside, and grades a copy of regular files only.
 */

const SECRET = 'RUN-FOLDER-SECRET-3c9e1f';
let tmp: string;
let secretFile: string;
let pool: TaskPool;

beforeAll(() => {
  expect(bwrapAvailable(), 'bubblewrap must be installed (.ci/run installs it)').toBe(true);
  tmp = mkdtempSync(path.join(tmpdir(), 'hostile-workspace-'));
  mkdirSync(path.join(tmp, 'run'));
  secretFile = path.join(tmp, 'run', 'archive-secret.txt');
  writeFileSync(secretFile, SECRET);
  const sandbox = resolveSandbox('bwrap');
  if (sandbox.kind !== 'bwrap') throw new Error('bubblewrap is needed');
  pool = startWorkspacePool(path.join(tmp, 'pool'), sandbox, { maxFiles: 1000, maxKb: 1024 }, { size: 2 });
});

afterAll(async () => {
  await pool.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function run(
  input: Record<string, unknown>,
): Promise<{ reply: WorkerReply; workspace: CollectedWorkspace }> {
  const request: TaskRequest = {
    id: `t-${String(input.act)}-${Math.random()}`,
    domain: 'js-add',
    input: { secret: secretFile, ...input },
    workspace: { files: STARTING_FILES },
  };
  const reply = await pool.run(request);
  if (reply.kind !== 'reply' || reply.workspace === undefined)
    throw new Error(`no workspace: ${JSON.stringify(reply)}`);
  return { reply, workspace: reply.workspace };
}

const filesOf = (w: CollectedWorkspace): Record<string, string> => {
  if (w.kind !== 'files') throw new Error(`refused: ${w.reason}`);
  return w.files;
};

const secretIntact = (): void => {
  expect(readFileSync(secretFile, 'utf8')).toBe(SECRET);
  expect(readdirSync(path.join(tmp, 'run'))).toEqual(['archive-secret.txt']);
};

describe('a hostile TaskAgent in its workspace', () => {
  it('leaves links, a FIFO, a setuid file and a .git: none is followed or collected, and grading sees regular files only', async () => {
    const { workspace } = await run({ act: 'links' });
    const files = filesOf(workspace);
    expect(Object.keys(files).sort()).toEqual(['README.md', 'request.json', 'solution.js']);
    expect(JSON.stringify(files)).not.toContain(SECRET);
    expect(JSON.stringify(files)).not.toContain('root:x:0');
    expect(workspace.kind === 'files' && workspace.skipped.sort()).toEqual([
      '.git (a .git folder is not collected)',
      'passwd.txt (a link)',
      'pipe (not a regular file)',
      'secret.txt (a link)',
      'secrets (a link)',
      'suid.sh (a setuid or setgid file)',
    ]);
    const task = addTask('links', {});
    const grading = createGradeContext({
      sandbox: resolveSandbox('bwrap') as { kind: 'bwrap' },
      nodeModules: path.resolve('node_modules'),
      scratchDir: path.join(tmp, 'grading'),
    });
    const graded = await gradeWorkspace(addDomain({ train: [task] }), task, workspace, grading);
    expect(graded.outcome).toBe('correct');
    expect(graded.log).toContain('grading copy: only regular files');
    expect(graded.detail).toContain('not collected: ');
    expect(existsSync('/tmp/PWNED')).toBe(false);
    secretIntact();
  }, 60_000);

  it('writes a file far over the size limit: refused with the reason, without reading it whole', async () => {
    const started = Date.now();
    const { workspace } = await run({ act: 'huge', bytes: 64 * 1024 * 1024 });
    expect(workspace).toEqual({
      kind: 'refused',
      reason:
        'the workspace is over its limits (1000 files, 1024 KiB): it has more than 1048576 bytes of files',
    });
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('writes 100k files: refused with the reason, the harness does not hang, and the folder is removed', async () => {
    const started = Date.now();
    const { workspace } = await run({ act: 'many', files: 100_000 });
    expect(workspace.kind === 'refused' && workspace.reason).toContain('more than 1000 files and folders');
    expect(Date.now() - started).toBeLessThan(120_000);
    const collected = readdirSync(path.join(tmp, 'pool', 'workspaces')).map((w) =>
      readdirSync(path.join(tmp, 'pool', 'workspaces', w, 'collected')),
    );
    expect(collected.flat()).toEqual([]);
  }, 180_000);

  it('swaps its workspace folder for a link to the run folder: refused, nothing read through it', async () => {
    const { workspace } = await run({ act: 'swap-root' });
    expect(workspace).toEqual({
      kind: 'refused',
      reason: 'the workspace folder was replaced by a link or a file',
    });
    secretIntact();
  }, 60_000);

  it('leaves a process that swaps a folder for a link while the harness collects: the secret is never read or removed', async () => {
    for (let i = 0; i < 5; i++) {
      const { workspace } = await run({ act: 'swap-sub', ms: 2000 });
      if (workspace.kind === 'files') {
        expect(JSON.stringify(workspace.files)).not.toContain(SECRET);
        expect(Object.keys(workspace.files).every((f) => !f.includes('archive-secret'))).toBe(true);
      }
      secretIntact();
    }
    // The processes left behind end on their own; the secret survives their swaps and the harness's removal.
    await new Promise((r) => setTimeout(r, 2500));
    secretIntact();
  }, 60_000);

  it('cannot read a hidden test file of the harness from inside its sandbox', async () => {
    const hidden = path.join(tmp, 'domain', 'hidden.test.js');
    mkdirSync(path.dirname(hidden));
    writeFileSync(hidden, 'HIDDEN-TEST-CONTENT');
    const { workspace } = await run({ act: 'steal', hidden });
    expect(filesOf(workspace)['stolen.txt']).toBe('refused: ENOENT');
  }, 60_000);
});
