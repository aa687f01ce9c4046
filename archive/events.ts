import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';
import {
  type ArchiveEvent,
  checkedEventData,
  type EventInput,
  type EventKind,
  type EventWriter,
  isOfKind,
  readEvent,
  type UnreadEvent,
} from './event-kinds.ts';
import { type Redactor, redactDeep } from './redact.ts';
import { rowId } from './variants.ts';

/** One stored row of the run's event log (`events`), its data parsed from JSON when it is JSON. */
export const EventRow = z
  .object({
    id: z.number(),
    ts: z.string(),
    variant_id: z.number().nullable(),
    type: z.string(),
    data: z.string(),
  })
  .transform((r) => ({ id: r.id, ts: r.ts, variantId: r.variant_id, type: r.type, data: parseData(r.data) }));
export type EventRow = z.output<typeof EventRow>;

function parseData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The event log read through the kinds of `event-kinds.ts`: every reader gets each event's data parsed by its
 * kind's schema. A row this version cannot read as its kind (see readEvent) is left out of the lists, never
 * thrown; `unreadEvents` says which and why.
 */
export function eventQueries(db: Db, decode: Decode) {
  const rows = (sql: string, ...params: unknown[]): EventRow[] =>
    db
      .prepare(sql)
      .all(...params)
      .map((raw) => decode(EventRow, raw, `event ${rowId(raw)}`));
  const readable = (list: EventRow[]): ArchiveEvent[] =>
    list.flatMap((row) => {
      const read = readEvent(row);
      return read.ok ? [read.event] : [];
    });
  return {
    /** Every event after `afterId` (all by default), oldest first. */
    listEvents(afterId = 0): ArchiveEvent[] {
      return readable(rows('SELECT * FROM events WHERE id > ? ORDER BY id', afterId));
    },
    /** The events of `kinds` after `afterId` (all by default), oldest first. */
    eventsOf<K extends EventKind>(kinds: readonly K[], afterId = 0): ArchiveEvent<K>[] {
      if (kinds.length === 0) return [];
      const sql = `SELECT * FROM events WHERE type IN (${kinds.map(() => '?').join(', ')}) AND id > ? ORDER BY id`;
      return readable(rows(sql, ...kinds, afterId)).filter(isOfKind(kinds));
    },
    /** The rows of the log this version cannot read as events, with why; oldest first. */
    unreadEvents(): UnreadEvent[] {
      return rows('SELECT * FROM events ORDER BY id').flatMap((row) => {
        const read = readEvent(row);
        return read.ok ? [] : [read.unread];
      });
    },
    /** The id of the newest event, 0 before the first: where a reader of what comes next starts. */
    lastEventId(): number {
      const row = db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM events').get() as { id: number };
      return row.id;
    },
    /** When the newest event was logged (ISO time), null before the first. */
    lastEventAt(): string | null {
      const row = db.prepare('SELECT MAX(ts) AS ts FROM events').get() as { ts: string | null };
      return row.ts;
    },
  };
}

/**
 * Writes an event row: `data` is checked against its kind's schema (a mismatch throws, as only code writes
 * events) and redacted on the way in. For the typed `recordEvent`, and for a variant's step moves.
 */
export function eventWriter(db: Db, redact: Redactor): EventWriter {
  return (variantId: number | null, kind: string, data: unknown): void => {
    checkedEventData(kind, data);
    db.prepare('INSERT INTO events (ts, variant_id, type, data) VALUES (?, ?, ?, ?)').run(
      now(),
      variantId,
      kind,
      JSON.stringify(redactDeep(data, redact)),
    );
  };
}

export function eventWrites(db: Db, redact: Redactor) {
  const write = eventWriter(db, redact);
  return {
    /** Records an event of `kind` (see EVENT_KINDS); its data is redacted on the way in. */
    recordEvent<K extends EventKind>(variantId: number | null, kind: K, data: EventInput<K>): void {
      write(variantId, kind, data);
    },
  };
}
