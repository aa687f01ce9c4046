import { spawn } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { procStat } from './proc-stat.ts';

describe('procStat', () => {
  it("reads this process's parent, group and CPU time", () => {
    const stat = procStat(process.pid);
    expect(stat).not.toBeNull();
    expect(stat!.parent).toBe(process.ppid);
    expect(stat!.processGroup).toBeGreaterThan(0);
    expect(stat!.cpuTicks).toBeGreaterThanOrEqual(0);
  });

  it('counts the fields after a command name that holds spaces and a parenthesis', async () => {
    // The kernel names a process after its executable's file name: a link named like this one.
    const dir = mkdtempSync(path.join(tmpdir(), 'proc-stat-'));
    const odd = path.join(dir, 'a) b (c');
    symlinkSync('/bin/sleep', odd);
    const child = spawn(odd, ['5'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const stat = procStat(child.pid!);
      expect(stat?.command).toBe('a) b (c');
      expect(stat?.parent).toBe(process.pid);
    } finally {
      child.kill();
    }
  });

  it('is null for a process that is gone', () => {
    expect(procStat(2 ** 22 + 1)).toBeNull();
  });
});
