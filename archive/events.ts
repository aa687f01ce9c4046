import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';
import { type Redactor, redactDeep } from './redact.ts';
import { rowId } from './variants.ts';

/** One entry of the run's event log (`events`), its data parsed from JSON when it is JSON. */
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

export function eventQueries(db: Db, decode: Decode) {
  return {
    /** Events after `afterId` (all by default), oldest first. */
    listEvents(afterId = 0): EventRow[] {
      return db
        .prepare('SELECT * FROM events WHERE id > ? ORDER BY id')
        .all(afterId)
        .map((raw) => decode(EventRow, raw, `event ${rowId(raw)}`));
    },
    /** Events of the given types, oldest first. */
    listEventsOfType(types: readonly string[]): EventRow[] {
      if (types.length === 0) return [];
      return db
        .prepare(`SELECT * FROM events WHERE type IN (${types.map(() => '?').join(', ')}) ORDER BY id`)
        .all(...types)
        .map((raw) => decode(EventRow, raw, `event ${rowId(raw)}`));
    },
    /** When the newest event was logged (ISO time), null before the first. */
    lastEventAt(): string | null {
      const row = db.prepare('SELECT MAX(ts) AS ts FROM events').get() as { ts: string | null };
      return row.ts;
    },
  };
}

export function eventWrites(db: Db, redact: Redactor) {
  return {
    /** Logs an event; its data is redacted on the way in. */
    logEvent(variantId: number | null, type: string, data: unknown = {}): void {
      db.prepare('INSERT INTO events (ts, variant_id, type, data) VALUES (?, ?, ?, ?)').run(
        now(),
        variantId,
        type,
        JSON.stringify(redactDeep(data, redact)),
      );
    },
  };
}
