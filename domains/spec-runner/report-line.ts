/** The runner's report line, written by hand and through built-ins taken before the spec loaded. */
import { BufferByteLength, BufferFrom, fsWriteSync, JSONStringify } from './intrinsics.ts';
import type { SpecTest } from './protocol.ts';

/** A JSON string of `text` (a primitive string: `JSON.stringify` consults no `toJSON` for it). */
const jsonString = (text: string): string => JSONStringify(text);

/** The report's JSON, written out by hand so no `toJSON` a solution defined can change it. */
export function reportJson(tests: SpecTest[], tampering: string[]): string {
  let out = '{"tests":[';
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i] as SpecTest;
    const message = t.message === undefined ? '' : `,"message":${jsonString(t.message)}`;
    out = `${out}${i === 0 ? '' : ','}{"name":${jsonString(t.name)},"passed":${t.passed ? 'true' : 'false'}${message}}`;
  }
  out = `${out}],"tampering":[`;
  for (let i = 0; i < tampering.length; i++)
    out = `${out}${i === 0 ? '' : ','}${jsonString(tampering[i] as string)}`;
  return `${out}]}`;
}

/** Writes all of `text` to stdout, through the `writeSync` taken before the spec loaded. */
export function writeOut(text: string): void {
  const bytes = BufferFrom(text, 'utf8');
  const length = BufferByteLength(bytes);
  let written = 0;
  while (written < length) {
    try {
      written += fsWriteSync(1, bytes, written, length - written);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EAGAIN') throw error;
    }
  }
}
