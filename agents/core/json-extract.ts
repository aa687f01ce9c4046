/**
 * Tolerant JSON extraction from model text. Never throws: text that cannot be read is skipped.
 *
 * Sources, in this order: `<json>...</json>` blocks, then ```json (or ~~~json) fences, then bare
 * top-level `{...}` objects; each source in order of appearance. A candidate that lies inside an
 * earlier-claimed region (a fence inside a tag block, an object inside a fence) is not reported twice,
 * and a bare object that would run across a tag block or fence is not taken.
 *
 * Cost is linear: searches are memoised, every parse stops at its first error, an object that was still
 * open when a parse failed is not tried again (it would fail at the same place), and the search for
 * objects has a work budget proportional to the text's length (see `Source`).
 */

import {
  type CutOffObject,
  cutOffObjects,
  isContainer,
  isPlainObject,
  isQuote,
  isSpace,
  isWordStart,
  type ParsedValue,
  parseValueAt,
  readSource,
  type Source,
  skipSpace,
} from './lenient-json.ts';

export { type CutOffObject, isPlainObject, type LenientParse, parseLenientJson } from './lenient-json.ts';

export type JsonSource = 'tag' | 'fence' | 'bare';

export type JsonCandidate = { source: JsonSource; start: number; end: number; values: unknown[] };

export type JsonScan = {
  candidates: JsonCandidate[];
  /** Offset of a `<json>` tag that was opened on JSON (or on nothing) and never closed, if any. */
  unclosedTagAt?: number;
  /** Objects outside tag blocks that were cut off by the end of the text. */
  cutOff: CutOffObject[];
};

type Region = { start: number; end: number };

const TAG_OPEN = '<json>';
const TAG_CLOSE = '</json>';
const JSON_FENCE = /(```|~~~)[ \t]*json[\w-]*[^\S\n]*\n?/gi;
const ANY_FENCE_OPENER = /(?:```|~~~)[\w+-]*[^\S\n]*\n?/y;

export function extractJsons(text: string): unknown[] {
  try {
    return scanJson(text).candidates.flatMap((c) => c.values);
  } catch {
    return [];
  }
}

export function scanJson(text: string): JsonScan {
  const src = readSource(text);
  const cutOff: CutOffObject[] = [];
  const tags = scanTags(src);
  const fences = scanFences(src, tags.regions, cutOff);
  const claimed = mergeRegions([...tags.regions, ...fences.regions]);
  const bare = findObjects(src, 0, text.length, claimed, cutOff).map(
    ({ start, end, value }): JsonCandidate => ({ source: 'bare', start, end, values: [value] }),
  );
  const candidates = [...tags.candidates, ...fences.candidates, ...bare].filter((c) => c.values.length > 0);
  return { candidates, unclosedTagAt: tags.unclosedTagAt, cutOff };
}

/**
 * `<json>` blocks. A block ends at the first `</json>` after its JSON value (so a `</json>` inside a
 * string does not end it). When the closing tag was forgotten, it ends at the next `<json>`, or after
 * its value when prose follows. A tag never closed otherwise is cut off when it was opened on JSON or
 * on nothing (its value, even if complete, is not taken: the reply stopped where `</json>` was due); on
 * prose it is a mention.
 */
function scanTags(src: Source): { regions: Region[]; candidates: JsonCandidate[]; unclosedTagAt?: number } {
  const { text } = src;
  const regions: Region[] = [];
  const candidates: JsonCandidate[] = [];
  for (let at = src.next(TAG_OPEN, 0); at !== -1; ) {
    const contentStart = at + TAG_OPEN.length;
    const valueStart = skipFenceOpener(text, skipSpace(src, contentStart, text.length));
    const first = parseValueAt(src, valueStart);
    const after = first.ok ? first.end : first.at;
    const close = src.next(TAG_CLOSE, after);
    const open = src.next(TAG_OPEN, after);
    if (close === -1 && open === -1) {
      if (first.ok && isContainer(first.value) && !isCutClosing(text.slice(first.end))) {
        regions.push({ start: at, end: first.end });
        candidates.push({ source: 'tag', start: at, end: first.end, values: [first.value] });
        break;
      }
      if (!'{["`~'.includes(text[valueStart] ?? '{')) {
        at = src.next(TAG_OPEN, at + 1);
        continue;
      }
      regions.push({ start: at, end: text.length });
      return { regions, candidates, unclosedTagAt: at };
    }
    const closed = close !== -1 && (open === -1 || close < open);
    const end = closed ? close + TAG_CLOSE.length : open;
    const values = parseBlock(src, contentStart, closed ? close : open, closed);
    regions.push({ start: at, end });
    candidates.push({ source: 'tag', start: at, end, values });
    at = src.next(TAG_OPEN, end);
  }
  return { regions, candidates };
}

/** ```json and ~~~json fences outside tag blocks. A fence never closed runs to the end of the text. */
function scanFences(
  src: Source,
  tagRegions: Region[],
  cutOff: CutOffObject[],
): { regions: Region[]; candidates: JsonCandidate[] } {
  const { text } = src;
  const regions: Region[] = [];
  const candidates: JsonCandidate[] = [];
  const opener = new RegExp(JSON_FENCE.source, JSON_FENCE.flags);
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    const at = match.index;
    const tag = regionAfter(tagRegions, at);
    if (tag && tag.start <= at) {
      opener.lastIndex = tag.end;
      continue;
    }
    const contentStart = at + match[0].length;
    const first = parseValueAt(src, skipSpace(src, contentStart, text.length));
    const close = src.next(match[1]!, first.ok ? first.end : first.at);
    const closed = close !== -1;
    const end = closed ? close + 3 : text.length;
    const values = parseBlock(src, contentStart, closed ? close : text.length, closed, tagRegions, cutOff);
    regions.push({ start: at, end });
    candidates.push({ source: 'fence', start: at, end, values });
    opener.lastIndex = end;
  }
  return { regions, candidates };
}

/**
 * The values of a block's content: the whole content as one value (a closed block may also be missing
 * its last closing brackets), else every object inside it.
 */
function parseBlock(
  src: Source,
  from: number,
  to: number,
  closed: boolean,
  excluded: Region[] = [],
  cutOff?: CutOffObject[],
): unknown[] {
  const { text } = src;
  const start = skipFenceOpener(text, skipSpace(src, from, to));
  let end = to;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (closed && /^(```|~~~)$/.test(text.slice(Math.max(start, end - 3), end))) end -= 3;
  const whole = (looseQuotes: boolean): ParsedValue | undefined => {
    const parsed = parseValueAt(src, start, { end, autoClose: closed, looseQuotes });
    if (!parsed.ok) {
      if (!looseQuotes && parsed.atEnd && end === text.length) cutOff?.push(...cutOffObjects(parsed.open));
      return undefined;
    }
    const region = regionAfter(excluded, start);
    const overlaps = region !== undefined && region.start < parsed.end;
    return skipSpace(src, parsed.end, end) < end || overlaps ? undefined : parsed;
  };
  const parsed = whole(false) ?? whole(true);
  if (parsed) return [parsed.value];
  return findObjects(src, start, end, excluded, end === text.length ? cutOff : undefined).map((o) => o.value);
}

/**
 * Every plain object in `text[from, to)` outside the excluded regions, in order. An object that is
 * still open when its parse fails is not tried again; objects cut off at the end of the text go to
 * `cutOff`.
 */
function findObjects(
  src: Source,
  from: number,
  to: number,
  excluded: Region[],
  cutOff?: CutOffObject[],
): { start: number; end: number; value: Record<string, unknown> }[] {
  const found: { start: number; end: number; value: Record<string, unknown> }[] = [];
  const failed = new Set<number>();
  let at = src.next('{', from);
  while (at !== -1 && at < to && src.budget > 0) {
    const region = regionAfter(excluded, at);
    if (region && region.start <= at) {
      at = src.next('{', region.end);
      continue;
    }
    if (!failed.has(at) && startsObject(src, at + 1, to)) {
      const parsed = parseValueAt(src, at, { end: to });
      src.budget -= (parsed.ok ? parsed.end : parsed.at) - at;
      if (parsed.ok) {
        if (isPlainObject(parsed.value) && !(region && region.start < parsed.end)) {
          found.push({ start: at, end: parsed.end, value: parsed.value });
          at = src.next('{', parsed.end);
          continue;
        }
      } else {
        for (const container of parsed.open) failed.add(container.start);
        if (parsed.atEnd && to === src.text.length) cutOff?.push(...cutOffObjects(parsed.open));
      }
    }
    at = src.next('{', at + 1);
  }
  return found;
}

/** Whether the `{` before `i` can open an object: it is followed by a key, `}` or a comment. */
function startsObject(src: Source, i: number, to: number): boolean {
  const c = src.text[skipSpace(src, i, to)];
  return c !== undefined && (c === '}' || c === '/' || isQuote(c) || isWordStart(c.charCodeAt(0)));
}

/** The first region (sorted, disjoint) that ends after `at`. */
function regionAfter(regions: Region[], at: number): Region | undefined {
  let low = 0;
  let high = regions.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (regions[mid]!.end <= at) low = mid + 1;
    else high = mid;
  }
  return regions[low];
}

function mergeRegions(regions: Region[]): Region[] {
  const merged: Region[] = [];
  for (const region of [...regions].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && region.start < last.end) last.end = Math.max(last.end, region.end);
    else merged.push({ ...region });
  }
  return merged;
}

/** Whether `rest` is what a reply cut off after a block's value ends with: a start of "```</json>". */
function isCutClosing(rest: string): boolean {
  const closing = rest.trim().replace(/^(`{1,3}|~{1,3})\s*/, '');
  return TAG_CLOSE.startsWith(closing);
}

function skipFenceOpener(text: string, i: number): number {
  ANY_FENCE_OPENER.lastIndex = i;
  return ANY_FENCE_OPENER.test(text) ? ANY_FENCE_OPENER.lastIndex : i;
}
