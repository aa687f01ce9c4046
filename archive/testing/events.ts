import { type ArchiveEvent, type EventInput, type EventKind, isOfKind, readEvent } from '../event-kinds.ts';

/** An event as a reader gets it, made from what a writer would give: for tests of pure readers. */
export function testEvent<K extends EventKind>(
  id: number,
  kind: K,
  data: EventInput<K>,
  ts = '2026-01-01T00:00:00.000Z',
): ArchiveEvent<K> {
  const read = readEvent({ id, ts, variantId: null, type: kind, data });
  if (!read.ok) throw new Error(`a ${kind} event that does not read: ${read.unread.why}`);
  if (!isOfKind([kind])(read.event)) throw new Error(`read back as ${read.event.type}, not ${kind}`);
  return read.event;
}
