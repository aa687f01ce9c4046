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
