import type { SkippedRow } from './define-domain.ts';

/** One CSV record and the 1-based line it starts on. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Why a record breaks the quoting rules, said once per record. */
const STRAY_QUOTE =
  'a quote inside a field that does not start with one (quote the whole field and double the quote inside: "a ""b"" c")';
const AFTER_QUOTE =
  'text after the closing quote of a field (a quote inside a quoted field is written twice: "")';
const NUL = 'a NUL byte (is the file binary, or text in an encoding other than UTF-8?)';

/**
 * Parses CSV as RFC 4180 describes it: fields separated by commas, records by CRLF or LF, quoted fields
 * that hold commas, line breaks and doubled quotes. A leading UTF-8 byte-order mark is dropped, blank
 * lines are ignored, and a quote left open reports the record it opened and ends the file there. A record
 * that breaks the quoting rules (a quote inside an unquoted field, text after a closing quote) or holds a
 * NUL byte is left out and reported by the line it starts on, never read into something else.
 * Pure; never throws.
 */
export function parseCsv(text: string): { records: CsvRecord[]; errors: SkippedRow[] } {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  const errors: SkippedRow[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let wasQuoted = false;
  let problem: string | null = null;
  let i = 0;
  const endField = () => {
    fields.push(field);
    field = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    const blank = fields.length === 0 && field === '' && !wasQuoted && problem === null;
    endField();
    if (problem !== null) errors.push({ line: start, reason: problem });
    else if (!blank) records.push({ line: start, fields });
    fields = [];
    problem = null;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\0') problem ??= NUL;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
      i++;
      continue;
    }
    if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      endRecord();
      if (c === '\r' && src[i + 1] === '\n') i++;
      line++;
      start = line;
    } else if (wasQuoted) problem ??= AFTER_QUOTE;
    else if (c === '"' && field === '') {
      quoted = true;
      wasQuoted = true;
    } else {
      if (c === '"') problem ??= STRAY_QUOTE;
      field += c;
    }
    i++;
  }
  if (quoted) {
    errors.push({
      line: start,
      reason: 'a quoted field is never closed (a missing " ); the rest of the file is ignored',
    });
  } else if (field !== '' || fields.length > 0 || wasQuoted || problem !== null) {
    endRecord();
  }
  return { records, errors };
}
