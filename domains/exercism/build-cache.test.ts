import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildOnce, markUsed, trimBuildCache } from './build-cache.ts';

/** A grader's build cache in a temp folder, with entries of known sizes last used at known times. */
let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-cache-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const HOUR = 60 * 60 * 1000;
const NOW = Date.parse('2026-12-07T12:00:00Z');
const limits = { capBytes: 3000, idleMs: HOUR };

/** An entry of `kb` KiB in two files, last used `hoursAgo` before NOW. */
function entry(name: string, kb: number, hoursAgo: number, now = NOW): void {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'pkg'), { recursive: true });
  writeFileSync(path.join(dir, 'a'), Buffer.alloc(512 * kb));
  writeFileSync(path.join(dir, 'pkg', 'b'), Buffer.alloc(512 * kb));
  const at = new Date(now - hoursAgo * HOUR);
  utimesSync(dir, at, at);
}

const left = () => readdirSync(root).sort();

describe("trimming a grader's build cache", () => {
  it('removes the least recently used entries until it is under its cap, and nothing when it is under', () => {
    entry('go1.19', 1, 30);
    entry('go1.21', 1, 2);
    entry('rust-a', 1, 10);
    entry('rust-b', 1, 5);
    // 4 KiB over a cap of 3000 bytes: the two used longest ago go, in that order.
    expect(trimBuildCache(root, limits, NOW)).toEqual(['go1.19', 'rust-a']);
    expect(left()).toEqual(['go1.21', 'rust-b']);
    expect(trimBuildCache(root, limits, NOW)).toEqual([]);
  });

  it('never removes an entry used within the last hour (a grading may read it), even over the cap', () => {
    entry('old', 1, 3);
    entry('in-use', 4, 0.5);
    entry('just-built', 4, 0);
    expect(trimBuildCache(root, limits, NOW)).toEqual(['old']);
    expect(left()).toEqual(['in-use', 'just-built']);
  });

  it('keeps an entry a grading found lately: marking it used makes it the newest', () => {
    entry('a', 1, 9);
    entry('b', 1, 8);
    entry('c', 1, 7);
    markUsed(path.join(root, 'a'), new Date(NOW - 2 * HOUR));
    expect(trimBuildCache(root, limits, NOW)).toEqual(['b']);
  });

  it('removes a half-built entry left by a build that died, never one being built', () => {
    entry('go1.21.abc.partial', 1, 2);
    entry('rust-a.def.partial', 1, 0.1);
    expect(trimBuildCache(root, { ...limits, capBytes: 1e9 }, NOW)).toEqual(['go1.21.abc.partial']);
    expect(left()).toEqual(['rust-a.def.partial']);
  });

  it('is trimmed when a new entry is built into it, and the new entry stays', async () => {
    entry('stale', 2, 48, Date.now());
    await buildOnce(
      new Map(),
      path.join(root, 'fresh'),
      async (into) => {
        writeFileSync(path.join(into, 'std.a'), Buffer.alloc(2048));
        return true;
      },
      { capBytes: 2500, idleMs: HOUR },
    );
    expect(left()).toEqual(['fresh']);
    expect(existsSync(path.join(root, 'fresh', 'std.a'))).toBe(true);
  });

  it('leaves a folder it cannot read as it is', () => {
    expect(trimBuildCache(path.join(root, 'none'), limits, NOW)).toEqual([]);
  });
});
