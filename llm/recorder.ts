import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  type ChatRequest,
  ChatResponseSchema,
  formatIssues,
  MessageSchema,
  ReasoningEffortSchema,
  type Role,
  RoleSchema,
  ToolSpecSchema,
} from './types.ts';

/**
 * Record and replay of model responses (docs/architecture.md, 'Model calls'). A recording is JSON Lines,
 * appended one line per successful call, so a crash loses at most the line being written: `{"key", "request",
 * "response"}`. `request` is the normalized request the key is the hash of; run-specific text in it and in
 * the response (the run folder, which holds the worktrees and evals folders, the project folder, the run id)
 * is replaced by placeholders, so a run in another `--out` folder asks the same questions under the same
 * keys.
 */

/** A text that differs between runs, and the placeholder that stands for it in a recording. */
export interface Placeholder {
  value: string;
  name: string;
  /** Replace only where the value stands alone (not inside a longer name): for short values like run ids. */
  wholeWord?: boolean;
}

/** What a run puts in prompts that another run would not: its folder (the worktrees live in it) and id. */
export function runPlaceholders(opts: { runDir: string; runId: string; projectRoot: string }): Placeholder[] {
  const paths = (value: string, name: string): Placeholder[] => {
    let real = value;
    try {
      real = realpathSync(value);
    } catch {
      // not created yet: the path as given is the only spelling
    }
    return [...new Set([value, real])].map((v) => ({ value: v, name }));
  };
  return [
    ...paths(opts.runDir, '<RUN_DIR>'),
    ...paths(opts.projectRoot, '<PROJECT_DIR>'),
    { value: opts.runId, name: '<RUN_ID>', wholeWord: true },
  ];
}

export interface Normalizer {
  /** Replaces run-specific text by placeholders in every string of a JSON value. */
  normalize<T>(value: T): T;
  /** The reverse: placeholders back to this run's text (a replayed reply that names a path gets ours). */
  restore<T>(value: T): T;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ID_CHAR = 'A-Za-z0-9._-';

export function createNormalizer(placeholders: readonly Placeholder[]): Normalizer {
  // Longest first: the run folder may sit inside the project folder.
  const ordered = placeholders
    .filter((p) => p.value.length > 0)
    .sort((a, b) => b.value.length - a.value.length);
  const forward = ordered.map((p) => {
    const text = escapeRegExp(p.value);
    return {
      pattern: new RegExp(p.wholeWord ? `(?<![${ID_CHAR}])${text}(?![${ID_CHAR}])` : text, 'g'),
      name: p.name,
    };
  });
  const byName = new Map<string, string>();
  for (const p of ordered) if (!byName.has(p.name)) byName.set(p.name, p.value);
  const backward = [...byName].map(([name, value]) => ({
    pattern: new RegExp(escapeRegExp(name), 'g'),
    value,
  }));
  const mapStrings = (value: unknown, f: (s: string) => string): unknown => {
    if (typeof value === 'string') return f(value);
    if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
    }
    return value;
  };
  return {
    normalize: <T>(value: T) =>
      mapStrings(value, (s) => forward.reduce((t, p) => t.replace(p.pattern, p.name), s)) as T,
    restore: <T>(value: T) =>
      mapStrings(value, (s) => backward.reduce((t, p) => t.replace(p.pattern, () => p.value), s)) as T,
  };
}

export const RecordedRequestSchema = z.object({
  role: RoleSchema,
  model: z.string(),
  messages: z.array(MessageSchema),
  tools: z.array(ToolSpecSchema).optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  reasoning: ReasoningEffortSchema.optional(),
});
export type RecordedRequest = z.infer<typeof RecordedRequestSchema>;

/**
 * A reply as the gateway answers it, less what belongs to one call (the model's name, the latency), with the
 * model the provider said served it (absent in recordings made before it was kept), so a replayed call's
 * ledger row names it too.
 */
export const RecordedResponseSchema = ChatResponseSchema.omit({ model: true, latencyMs: true }).extend({
  reportedModel: z.string().optional(),
});
export type RecordedResponse = z.infer<typeof RecordedResponseSchema>;

export const RecordingLineSchema = z.object({
  key: z.string(),
  request: RecordedRequestSchema,
  response: RecordedResponseSchema,
});
export type RecordingLine = z.infer<typeof RecordingLineSchema>;

/** The request as recorded: who asks, which model, and what decides the answer; nothing else. */
export function normalizeRequest(
  role: Role,
  model: string,
  req: ChatRequest,
  normalizer: Normalizer,
): RecordedRequest {
  return normalizer.normalize({
    role,
    model,
    messages: req.messages,
    ...(req.tools === undefined ? {} : { tools: req.tools }),
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(req.maxTokens === undefined ? {} : { maxTokens: req.maxTokens }),
    ...(req.reasoning === undefined ? {} : { reasoning: req.reasoning }),
  });
}

/** sha256 of the request's JSON with object keys sorted, so field order never matters. */
export function requestKey(request: RecordedRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export interface RecordWriter {
  file: string;
  /** Appends one line; synchronous, so the line is on disk before the reply leaves the gateway. */
  append(line: RecordingLine): void;
}

/** Creates the file (and its folder) at once, so a run that records nothing still leaves it. */
export function createRecordWriter(file: string): RecordWriter {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, '');
  return { file, append: (line) => appendFileSync(file, `${JSON.stringify(line)}\n`) };
}

export interface ReplayBook {
  file: string;
  /** Recorded calls in the file. */
  size: number;
  /**
   * The next recorded response for the key: the recorded ones in order, then the last one again (the same
   * request gets the same answer). Undefined when the key was never recorded.
   */
  next(key: string): RecordedResponse | undefined;
}

/**
 * Reads a recording. Throws an Error naming the file and line for anything that is not a recording line,
 * except a cut-off last line (a crash while appending), which is skipped.
 */
export function loadReplayBook(file: string): ReplayBook {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the recording ${file}: ${(error as Error).message}`);
  }
  const byKey = new Map<string, RecordedResponse[]>();
  const lines = text.split('\n');
  let size = 0;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const last = lines.slice(index + 1).every((l) => l.trim() === '');
      if (last && !text.endsWith('\n')) continue;
      throw new Error(`${where} is not JSON (${(error as Error).message}); is this a --record file?`);
    }
    const parsed = RecordingLineSchema.safeParse(value);
    if (!parsed.success) {
      throw new Error(
        `${where} is not a recorded call {"key", "request", "response"}:\n${formatIssues(parsed.error.issues)}`,
      );
    }
    const list = byKey.get(parsed.data.key) ?? [];
    list.push(parsed.data.response);
    byKey.set(parsed.data.key, list);
    size++;
  }
  if (size === 0) throw new Error(`the recording ${file} holds no recorded calls`);
  const cursors = new Map<string, number>();
  return {
    file,
    size,
    next(key) {
      const list = byKey.get(key);
      if (list === undefined) return undefined;
      const at = cursors.get(key) ?? 0;
      cursors.set(key, at + 1);
      return list[Math.min(at, list.length - 1)];
    },
  };
}
