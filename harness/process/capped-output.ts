import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import type { Redactor } from '../../archive/index.ts';
import { readNoFollow } from '../../system/read-no-follow.ts';

/** The note left where a text was cut. */
export function cutNote(capBytes: number, dropped: number): string {
  const limit = capBytes >= 1024 ? `${Math.round(capBytes / 1024)} KiB` : `${capBytes}-byte`;
  return `\n[hyperagents: cut here; the output passed the ${limit} limit (--max-output-kb), ${dropped} more bytes were not kept]\n`;
}

/** `text` cut to at most `capBytes` bytes of UTF-8, with a note where it was cut. Pure. */
export function capText(text: string, capBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= capBytes) return text;
  const kept = Buffer.from(text)
    .subarray(0, capBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}${cutNote(capBytes, bytes - Buffer.byteLength(kept))}`;
}

/**
 * Opens a harness file for append or (with `create`) as a new file without following a link: a link or
 * anything but a regular file at `file` is refused (throws). O_NONBLOCK so a planted FIFO cannot hang
 * the harness.
 */
export function openNoFollow(file: string, mode: 'append' | 'create'): number {
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK |
    (mode === 'append' ? constants.O_APPEND : constants.O_EXCL);
  const fd = openSync(file, flags, 0o644);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`${file} is not a regular file`);
  }
  return fd;
}

/** Reads at most `capBytes` of a file an agent wrote, never following a link; null if it is absent or not a file. */
export function readCapped(file: string, capBytes: number): string | null {
  const read = readNoFollow(file, capBytes + 1);
  if (read === null) return null;
  const text = read.bytes.toString('utf8');
  return read.size > capBytes ? capText(text, capBytes) : text;
}

/**
 * Copies a file an agent wrote into a folder only the harness writes: read without following a link, cut
 * at `capBytes`, redacted, written as a new file. Returns why it was not copied, or null (also when the
 * agent wrote nothing there).
 */
export function copyAgentFile(from: string, to: string, capBytes: number, redact: Redactor): string | null {
  const text = readCapped(from, capBytes);
  return text === null ? null : writeAgentText(to, text, capBytes, redact);
}

/**
 * Writes a text an agent produced (elsewhere: a queue worker read it) as a new file in a folder only the
 * harness writes: cut at `capBytes`, redacted. Returns why it was not written, or null.
 */
export function writeAgentText(to: string, text: string, capBytes: number, redact: Redactor): string | null {
  try {
    const fd = openNoFollow(to, 'create');
    try {
      writeSync(fd, redact(capText(text, capBytes)));
    } finally {
      closeSync(fd);
    }
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export interface CappedLog {
  /** Must not throw (it is called from stream events): a write that fails is kept as `failure`. */
  write(chunk: string | Buffer): void;
  /** Flushes the last partial line and notes how much was cut. Idempotent; does not throw either. */
  close(): void;
  /** The first write that failed (a full disk): the log lacks everything from there on. Null while none has. */
  failure(): Error | null;
}

/** A partial line longer than this is written out (redacted) rather than held. */
const MAX_HELD = 64 * 1024;

/**
 * An append-only log in a folder no agent can write, opened without following links. Text is redacted
 * line by line (so a key split across chunks is still caught) and cut at `capBytes` with a note.
 */
export function openCappedLog(file: string, capBytes: number, redact: Redactor): CappedLog {
  const fd = openNoFollow(file, 'append');
  let written = 0;
  let dropped = 0;
  let held = '';
  let closed = false;
  let failure: Error | null = null;
  const put = (data: Buffer): void => {
    if (failure !== null) return;
    try {
      writeSync(fd, data);
    } catch (error) {
      failure = error as Error;
    }
  };
  const emit = (text: string): void => {
    const bytes = Buffer.from(redact(text));
    const room = capBytes - written;
    if (room <= 0) {
      dropped += bytes.length;
      return;
    }
    const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
    put(part);
    written += part.length;
    dropped += bytes.length - part.length;
  };
  return {
    write(chunk) {
      if (closed) return;
      held += chunk.toString();
      const end = held.lastIndexOf('\n');
      if (end >= 0) {
        emit(held.slice(0, end + 1));
        held = held.slice(end + 1);
      }
      if (held.length > MAX_HELD) {
        emit(held);
        held = '';
      }
    },
    close() {
      if (closed) return;
      closed = true;
      if (held !== '') emit(held);
      if (dropped > 0) put(Buffer.from(cutNote(capBytes, dropped)));
      closeSync(fd);
    },
    failure: () => failure,
  };
}
