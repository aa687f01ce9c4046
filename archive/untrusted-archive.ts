import Database from 'better-sqlite3';
import { type ArchiveCheck, checkArchive } from './archive-check.ts';
import { MIGRATIONS } from './migrations.ts';

/** The largest value one cell of an archive from elsewhere may hold, in bytes: no honest row comes near. */
export const MAX_CELL_BYTES = 64 * 1024 * 1024;

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

const schemaOf = (db: Database.Database): SchemaRow[] =>
  db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all() as SchemaRow[];

/** The schema an archive has after the first `count` migrations, from an empty database. */
function migratedSchema(count: number): SchemaRow[] {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    for (const migration of MIGRATIONS.slice(0, count)) db.exec(migration.sql);
    return schemaOf(db);
  } finally {
    db.close();
  }
}

const same = (a: SchemaRow, b: SchemaRow | undefined): boolean =>
  b !== undefined && a.type === b.type && a.name === b.name && a.tbl_name === b.tbl_name && a.sql === b.sql;

/**
 * Whether an archive that came from elsewhere (a bundle's archive.sqlite) is safe to read: its schema is
 * exactly what this version's migrations make (no views, triggers or tables of its own, which a query would
 * run), no cell holds more than MAX_CELL_BYTES (read whole, it would fill memory), every page reads back, and
 * its run and variants read as checkArchive reads them. Never writes. Pure of side effects but reading.
 */
export function checkUntrustedArchive(file: string): ArchiveCheck {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { ok: false, why: `SQLite cannot open it (${(error as Error).message})` };
  }
  try {
    db.pragma('trusted_schema = OFF');
    const found = schemaOf(db);
    if (!found.some((r) => r.type === 'table' && r.name === 'migrations'))
      return { ok: false, why: 'it has no migrations table, so no version of hyperagents wrote it' };
    const applied = (db.prepare('SELECT name FROM migrations ORDER BY name').all() as { name: string }[]).map(
      (r) => r.name,
    );
    const known = MIGRATIONS.map((m) => m.name);
    if (applied.some((name, i) => name !== known[i]))
      return {
        ok: false,
        why: `its migrations (${applied.join(', ') || 'none'}) are not ones this version knows (${known.join(', ')})`,
      };
    const want = migratedSchema(applied.length);
    const odd =
      found.find(
        (row) =>
          !same(
            row,
            want.find((w) => w.name === row.name),
          ),
      ) ?? want.find((row) => !found.some((f) => f.name === row.name));
    if (odd !== undefined)
      return {
        ok: false,
        why: `its ${odd.type} ${odd.name} is not the one hyperagents makes: an archive from elsewhere is read only with this version's own schema`,
      };
    for (const table of found.filter((r) => r.type === 'table')) {
      const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table.name) as {
        name: string;
      }[];
      if (columns.length === 0) continue;
      // octet_length reads a value's size from its record, not the value: a huge cell is never loaded here.
      const widest = columns.map((c, i) => `max(octet_length("${c.name}")) AS c${i}`).join(', ');
      const row = db.prepare(`SELECT ${widest} FROM "${table.name}"`).get() as Record<string, number | null>;
      const bytes = Math.max(0, ...Object.values(row).map((n) => n ?? 0));
      if (bytes > MAX_CELL_BYTES)
        return {
          ok: false,
          why: `its table ${table.name} holds a value of ${bytes} bytes, more than any run writes`,
        };
    }
  } catch (error) {
    return { ok: false, why: `SQLite cannot read it (${(error as Error).message})` };
  } finally {
    db.close();
  }
  return checkArchive(file, { everyPage: true, knownSteps: true });
}
