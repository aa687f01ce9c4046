import { closeSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkArchive } from './archive-check.ts';
import { openArchiveReader, UnreadableArchiveError } from './read.ts';
import { writeSyntheticRun } from './testing/synthetic-run.ts';

/** A synthetic run's archive, changed by `change` (a real SQLite connection, or bytes written over it). */
function archive(change: (file: string) => void = () => {}): string {
  const dir = writeSyntheticRun(mkdtempSync(path.join(tmpdir(), 'archive-check-')), { id: 'r', variants: 6 });
  const file = path.join(dir, 'archive.sqlite');
  change(file);
  return file;
}

const sql = (file: string, statement: string): void => {
  const db = new Database(file);
  db.prepare(statement).run();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
};

/** Writes garbage over the first page of `table`, leaving every other table readable. */
function damageTable(file: string, table: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as {
    rootpage: number;
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
  closeSync(fd);
}

describe('checkArchive', () => {
  it('passes a sound archive, however thorough', () => {
    expect(checkArchive(archive(), { everyPage: true, knownSteps: true })).toEqual({ ok: true });
  });

  it.each([
    ['a file that is not there', (f: string) => `${f}.missing`, /^there is no such file$/],
    [
      'bytes that are not SQLite',
      (f: string) => {
        writeFileSync(f, 'x'.repeat(9000));
        return f;
      },
      /^file is not a database$/,
    ],
    [
      'SQLite without the archive tables',
      (f: string) => {
        const other = `${f}.other`;
        sql(other, 'CREATE TABLE notes (x)');
        return other;
      },
      /^it has no variants table$/,
    ],
    [
      'a variant status this version does not know',
      (f: string) => {
        sql(f, "UPDATE variants SET status = 'weird' WHERE id = 2");
        return f;
      },
      /^variant 2 has status "weird", which this version cannot read: expected one of/,
    ],
  ])('refuses %s, saying what is wrong', (_what, make, why) => {
    const file = make(archive());
    const check = checkArchive(file);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.why).toMatch(why);
  });

  it('an unknown step is read (a newer version may add one) unless the harness is to continue from it', () => {
    const file = archive((f) => sql(f, "UPDATE variants SET step = 'bogus' WHERE id = 3"));
    expect(checkArchive(file)).toEqual({ ok: true });
    expect(checkArchive(file, { knownSteps: true })).toEqual({
      ok: false,
      why: expect.stringMatching(
        /^variant 3 has step "bogus", which this version does not know: it knows selected,/,
      ),
    });
  });

  it('a damaged page the run summary never reads is found only by reading every page', () => {
    const file = archive((f) => damageTable(f, 'task_results'));
    expect(checkArchive(file)).toEqual({ ok: true });
    const thorough = checkArchive(file, { everyPage: true });
    expect(thorough.ok).toBe(false);
    // Reading the damaged table names the file, whichever command reads it.
    const reader = openArchiveReader(file);
    try {
      expect(() => reader.taskResults(1)).toThrow(UnreadableArchiveError);
      expect(() => reader.taskResults(1)).toThrow(`${file} is not a readable run archive (`);
    } finally {
      reader.close();
    }
  });
});
