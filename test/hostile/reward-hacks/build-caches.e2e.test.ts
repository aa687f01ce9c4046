import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultBuildCache, dependencyEntry, stdlibCache } from '../../../domains/index.ts';
import { exerciseTask, gradeAnswer, gradeReference } from './probes.ts';

/**
 * Answers that try to poison the grader's build caches (Go's compiled standard library, a Rust exercise's
 * compiled dependencies), so that a later grading of another answer builds on what they left. Each is a
 * correct answer that, while its tests run, writes over every file of the cache it can reach and adds
 * files of its own; it scores 1 only when every one of those writes failed. The caches must then be
 * byte for byte what they were, and a wrong answer graded next must still score 0.
 */

const TIMEOUT = 600_000;

/** Every file of a folder, path and content, as one digest. */
function digest(dir: string): { files: number; sha: string } {
  const hash = createHash('sha256');
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    hash.update(`${path.relative(dir, file)}\0`).update(readFileSync(file));
    files++;
  }
  return { files, sha: hash.digest('hex') };
}

const score = (grade: Awaited<ReturnType<typeof gradeAnswer>>) =>
  typeof grade === 'number' ? grade : grade.score;

describe('Go: the compiled standard library', () => {
  const bowling = exerciseTask('go/bowling');
  const reference = bowling.answer.reference['bowling.go']!;
  /** The reference, whose scores are all off by one if any write into $GOCACHE succeeded. */
  const poisoner = `${reference
    .replace('import "errors"', 'import (\n\t"errors"\n\t"fmt"\n\t"os"\n\t"path/filepath"\n)')
    .replace(
      'func (g *Game) Score() (int, error) {',
      'func (g *Game) Score() (int, error) {\n\tif wrote > 0 {\n\t\treturn -1, nil\n\t}',
    )}
var wrote int

func init() {
	dir := os.Getenv("GOCACHE")
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && os.WriteFile(p, []byte("poisoned"), 0o644) == nil {
			wrote++
		}
		return nil
	})
	for i := 0; i < 256; i++ {
		if os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02x", i), fmt.Sprintf("%064x-a", i)), []byte("v1 poisoned"), 0o644) == nil {
			wrote++
		}
	}
	if os.Chmod(dir, 0o777) == nil && os.RemoveAll(filepath.Join(dir, "00")) == nil {
		wrote++
	}
}
`;
  const WRONG = `package bowling

type Game struct{}

func NewGame() *Game { return &Game{} }

func (g *Game) Roll(pins int) error { return nil }

func (g *Game) Score() (int, error) { return 0, nil }
`;

  it(
    'an answer cannot write the cache: it is the same after, and the gradings after it are untouched',
    async () => {
      expect(await gradeReference(bowling)).toMatchObject({ score: 1 });
      const cache = stdlibCache(defaultBuildCache('go'));
      expect(cache !== null && existsSync(cache), 'the grader built the standard library').toBe(true);
      const before = digest(cache!);
      expect(before.files).toBeGreaterThan(100);
      expect(await gradeAnswer(bowling, { 'bowling.go': poisoner })).toMatchObject({
        score: 1,
        detail: '2/2 tests passed',
      });
      expect(digest(cache!)).toEqual(before);
      expect(score(await gradeAnswer(bowling, { 'bowling.go': WRONG }))).toBe(0);
      expect(await gradeReference(bowling)).toMatchObject({ score: 1 });
    },
    TIMEOUT,
  );
});

describe("Rust: an exercise's compiled dependencies", () => {
  const gigasecond = exerciseTask('rust/gigasecond');
  const reference = gigasecond.answer.reference['src/lib.rs']!;
  /**
   * The reference, a second off unless every write into the cache failed: it writes over each file of the
   * cache and of its own target folder's copy (its own, so those writes succeed and count for nothing),
   * and adds a file to the cache.
   */
  const poisoner = `${reference.replace('start + Duration::seconds(1_000_000_000)', 'start + Duration::seconds(1_000_000_000 + poison())')}
fn overwrite(dir: &std::path::Path, wrote: &mut i64) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                overwrite(&path, wrote);
            } else if std::fs::write(&path, b"poisoned").is_ok() {
                *wrote += 1;
            }
        }
    }
}

fn poison() -> i64 {
    let mut wrote = 0;
    if let Ok(dir) = std::env::var("GRADING_DEPENDENCIES") {
        let dir = std::path::Path::new(&dir);
        overwrite(dir, &mut wrote);
        if std::fs::write(dir.join("target/debug/deps/libpoison.rlib"), b"x").is_ok() {
            wrote += 1;
        }
    }
    let mut own = 0;
    overwrite(std::path::Path::new("target/debug/deps"), &mut own);
    wrote
}
`;
  const WRONG = `use time::PrimitiveDateTime as DateTime;

pub fn after(start: DateTime) -> DateTime {
    start
}
`;

  it(
    'an answer cannot write the cache: it is the same after, and the gradings after it are untouched',
    async () => {
      expect(await gradeReference(gigasecond)).toMatchObject({ score: 1 });
      const cache = dependencyEntry(
        gigasecond.answer.configuration?.['Cargo.toml'],
        defaultBuildCache('rust'),
      );
      expect(cache !== null && existsSync(cache), 'the grader built the manifest’s dependencies').toBe(true);
      const before = digest(cache!);
      expect(before.files).toBeGreaterThan(3);
      expect(await gradeAnswer(gigasecond, { 'src/lib.rs': poisoner })).toMatchObject({
        score: 1,
        detail: '5/5 tests passed',
      });
      expect(digest(cache!)).toEqual(before);
      expect(score(await gradeAnswer(gigasecond, { 'src/lib.rs': WRONG }))).toBe(0);
      expect(await gradeReference(gigasecond)).toMatchObject({ score: 1 });
    },
    TIMEOUT,
  );
});
