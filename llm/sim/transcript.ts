import type { Message } from '../types.ts';

/** Pure readers of a chat transcript, for a sim that derives all its state from the request. */

export function textOf(messages: readonly Message[], roles: readonly Message['role'][]): string {
  return messages
    .filter((m) => roles.includes(m.role))
    .map((m) => m.content)
    .join('\n');
}

export function assistantCount(messages: readonly Message[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

export const TEXT_TOOL_RESULT_PREFIX = 'Tool result:';

/**
 * Tool results in call order, for either protocol: `tool` messages (native), or user messages
 * `Tool result:\n{"tool_name", "tool_output"}` (text protocol; the output is returned as text).
 */
export function toolResults(messages: readonly Message[]): string[] {
  const results: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool') results.push(m.content);
    else if (m.role === 'user' && m.content.startsWith(TEXT_TOOL_RESULT_PREFIX)) {
      results.push(textToolOutput(m.content.slice(TEXT_TOOL_RESULT_PREFIX.length).trim()));
    }
  }
  return results;
}

function textToolOutput(json: string): string {
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed && typeof parsed === 'object' && 'tool_output' in parsed) {
      const output = (parsed as { tool_output: unknown }).tool_output;
      return typeof output === 'string' ? output : JSON.stringify(output);
    }
  } catch {
    // not JSON: use the raw text
  }
  return json;
}

/** The file lines of an editor `view` output (`<padded n>\t<line>`), or undefined if none are numbered. */
export function viewedLines(output: string): string[] | undefined {
  const lines: string[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*\d+\t(.*)$/.exec(line);
    if (match) lines.push(match[1] ?? '');
  }
  return lines.length > 0 ? lines : undefined;
}

/** Heuristic for a failed tool call: an error-ish first line or a non-zero `[exit code N]` line. */
export function looksLikeToolError(output: string): boolean {
  const first = output.trim().split('\n')[0] ?? '';
  return (
    /^(error|failed|denied|invalid|unknown tool)\b/i.test(first) ||
    /\b(error|no such file|not found)\b/i.test(first) ||
    /^\[exit code [1-9]\d*\]$/m.test(output)
  );
}

/** JSON values in ```json fences, then bare top-level objects, in order. Never throws. */
export function jsonValuesIn(text: string): unknown[] {
  const values: unknown[] = [];
  for (const match of text.matchAll(/```(?:json)?[^\n]*\n([\s\S]*?)```/g)) {
    const parsed = tryParse(match[1] ?? '');
    if (parsed.ok) values.push(parsed.value);
  }
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('{', i);
    if (start < 0) break;
    const end = matchingBrace(text, start);
    if (end < 0) break;
    const parsed = tryParse(text.slice(start, end + 1));
    if (parsed.ok) {
      values.push(parsed.value);
      i = end + 1;
    } else {
      i = start + 1;
    }
  }
  return values;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** JSON with object keys sorted at every level, so equal values compare equal as strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

export function longestStringLeaf(value: unknown): string {
  if (typeof value === 'string') return value;
  const children = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? Object.values(value as Record<string, unknown>)
      : [];
  let best = '';
  for (const child of children) {
    const leaf = longestStringLeaf(child);
    if (leaf.length > best.length) best = leaf;
  }
  return best;
}
