import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { MIGRATIONS } from './migrations.ts';

export type Db = Database.Database;

/**
 * Turns one stored row into its typed, camelCase shape: `schema.parse`, or for a reader a fault that names
 * the row (`what`) and the column it cannot read.
 */
export type Decode = <T>(schema: z.ZodType<T>, raw: unknown, what: string) => T;

/** The writer's decoding: its own file, migrated by this version, holds nothing it cannot read. */
export const strictDecode: Decode = (schema, raw) => schema.parse(raw);

export const now = (): string => new Date().toISOString();

/** A JSON column. */
export const jsonColumn = z.string().transform((text) => JSON.parse(text) as unknown);
/** A 0/1 column. */
export const flagColumn = z.number().transform((n) => n !== 0);

/** Opens (creating if needed) an archive file for writing and brings its schema up to date. */
export function openWritable(file: string): Db {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // With WAL, NORMAL syncs at checkpoints rather than at every commit: a killed process loses nothing it
  // committed (the OS holds it), only a power cut may drop the last commits, never the file's consistency.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** Opens an existing archive file for reading only: never creates, migrates or writes. */
export function openReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(
    db
      .prepare('SELECT name FROM migrations')
      .all()
      .map((row) => (row as { name: string }).name),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(migration.name, now());
    })();
  }
}
