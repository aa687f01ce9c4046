import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { formatIssues } from '../types.ts';

/** A scripted reply: plain text, or text plus tool calls (ids are assigned when replayed). */
export const SimReplySchema = z.union([
  z.string(),
  z.strictObject({
    content: z.string().default(''),
    toolCalls: z
      .array(
        z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) }),
      )
      .optional(),
  }),
]);
export type SimReply = z.input<typeof SimReplySchema>;

/**
 * Replies per role. `meta[g][i]` answers the i-th call (i = assistant messages in the request) of
 * generation g (= variantId); `task` and `select` cycle in call order. An absent role is simulated.
 */
export const SimScriptSchema = z
  .strictObject({
    meta: z.array(z.array(SimReplySchema)).optional(),
    task: z.array(SimReplySchema).min(1).optional(),
    select: z.array(SimReplySchema).min(1).optional(),
  })
  .refine((script) => script.meta !== undefined || script.task !== undefined || script.select !== undefined, {
    message: 'the script scripts no role: give at least one of "meta", "task" or "select"',
  });
export type SimScript = z.input<typeof SimScriptSchema>;
export type ParsedSimScript = z.output<typeof SimScriptSchema>;
export type ParsedSimReply = z.output<typeof SimReplySchema>;

/** Validates a script value; throws an Error naming `source` and every problem path by path. */
export function parseSimScript(value: unknown, source = 'sim script'): ParsedSimScript {
  const parsed = SimScriptSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `${source} is not a valid sim script ({"meta": [[reply, ...], ...], "task": [...], "select": [...]}, ` +
        `a reply being a string or {"content", "toolCalls": [{"name", "input"}]}):\n${formatIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data;
}

/** Reads and validates a sim script file (`--sim-script FILE`); throws an Error with a clear message. */
export function loadSimScript(path: string): ParsedSimScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read sim script ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`sim script ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseSimScript(value, `sim script ${path}`);
}
