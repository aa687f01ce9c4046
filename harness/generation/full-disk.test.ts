import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../archive/index.ts';
import { describeHarnessError, openCappedLog, runToCompletion } from '../process/index.ts';
import { assertRoomOnDisk } from './generation.ts';

const root = process.getuid?.() === 0;

/** The harness's own writes on a real full disk: a 4 MiB tmpfs, filled. */
describe.skipIf(!root)(
  'on a full disk (a real tmpfs; mounting one needs root, so this is skipped without it)',
  () => {
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'full-disk-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
      mkdirSync(path.join(dir, 'logs'));
    });
    afterAll(() => {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    });

    const fill = (): void => {
      try {
        writeFileSync(path.join(dir, 'filler'), Buffer.alloc(8 * 1024 * 1024));
      } catch {
        // ENOSPC: it is full.
      }
    };

    it('a capped log that cannot be written never throws, and says which write failed', () => {
      const log = openCappedLog(path.join(dir, 'logs', 'a.log'), 4 * 1024 * 1024, createRedactor());
      fill();
      expect(() => {
        for (let i = 0; i < 100; i++) log.write(`${'x'.repeat(1000)}\n`);
        log.close();
      }).not.toThrow();
      expect(log.failure()?.message).toMatch(/ENOSPC/);
    });

    it('a process whose log cannot be written is a harness failure (rejects), not the process failing', async () => {
      fill();
      const run = runToCompletion(
        {
          file: process.execPath,
          args: ['-e', 'for (let i = 0; i < 200; i++) console.error("y".repeat(1000))'],
          env: {},
          cwd: dir,
        },
        { timeoutMs: 30_000, logFile: path.join(dir, 'logs', 'b.log') },
      );
      await expect(run).rejects.toThrow(/could not write .*b\.log: ENOSPC/);
    });

    it('a harness error on a full disk is described as one, whatever words it came with (git: "unable to write file")', () => {
      fill();
      const git = new Error(
        `Command failed: git worktree add\n${'error: unable to write file x.ts\n'.repeat(200)}`,
      );
      const message = describeHarnessError(git, path.join(dir, 'variants.git'));
      expect(message).toMatch(
        new RegExp(`^the disk holding ${dir} is full \\(\\d+ KiB free; Command failed: git`),
      );
      expect(message.length).toBeLessThan(700);
      rmSync(path.join(dir, 'filler'));
      expect(describeHarnessError(git, path.join(dir, 'variants.git'))).not.toMatch(/is full/);
    });

    it('a generation failure is not recorded while the disk is full: a harness error naming the disk', () => {
      fill();
      let thrown: unknown;
      try {
        assertRoomOnDisk({ runDir: dir }, 3, 'MetaAgent exited with code 1');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(describeHarnessError(thrown, path.join(dir, 'variants.git'))).toMatch(
        new RegExp(
          `^the disk holding ${dir} is full \\(\\d+ KiB free; variant 3's failure \\("MetaAgent exited with code 1"\\) ` +
            'may be the full disk.s, so it is not recorded\\)\\. Nothing unfinished was stored: make room on it',
        ),
      );
      rmSync(path.join(dir, 'filler'));
      expect(() => assertRoomOnDisk({ runDir: dir }, 3, 'MetaAgent exited with code 1')).not.toThrow();
    });
  },
);
