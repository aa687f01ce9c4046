import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ToolSpec } from './messages.ts';

/** What a tool factory gets: the working root the tool must stay inside. */
export type ToolContext = { root: string };

/**
 * A tool the agent loop can call. `run` gets input already validated against `inputSchema` and returns
 * text for the model; it may throw, and the loop turns the exception into an error message.
 */
export type Tool<Input = unknown> = {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  run(input: Input): Promise<string>;
  close?(): Promise<void>;
};

export type ToolFactory = (ctx: ToolContext) => Tool | Promise<Tool>;

export type InputCheck<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Validates tool input; problems are listed one per field, e.g. `command: Invalid option: ...`. */
export function validateToolInput<T>(tool: Tool<T>, input: unknown): InputCheck<T> {
  const parsed = tool.inputSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: formatIssues(parsed.error) };
}

export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(input)' : path}: ${issue.message}`;
  });
}

/** The tool as the model sees it (native protocol, or the tool list in the system prompt). */
export function toToolSpec(tool: Tool): ToolSpec {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.inputSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, inputSchema };
}

export function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof Tool, unknown>>;
  return (
    typeof candidate.name === 'string' &&
    typeof candidate.description === 'string' &&
    typeof (candidate.inputSchema as { safeParse?: unknown } | undefined)?.safeParse === 'function' &&
    typeof candidate.run === 'function'
  );
}

export type LoadToolsOptions = { onWarning?: (message: string) => void };

/**
 * Discovers tools in `dir`: every `*.ts` file (tests excluded) whose default export is a Tool or a
 * factory `(ctx) => Tool`. Files that fail to load or export something else are skipped with a warning.
 * Tools come back sorted by file name.
 */
export async function loadTools(
  dir: string,
  ctx: ToolContext,
  options: LoadToolsOptions = {},
): Promise<Tool[]> {
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`${message}\n`));
  const files = (await readdir(dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .sort();
  const tools: Tool[] = [];
  for (const file of files) {
    try {
      const module = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
      const exported = module.default;
      const tool = typeof exported === 'function' ? await (exported as ToolFactory)(ctx) : exported;
      if (!isTool(tool)) {
        warn(`loadTools: ${file} does not default-export a tool or a tool factory; skipped`);
      } else if (tools.some((t) => t.name === tool.name)) {
        warn(`loadTools: ${file} defines tool "${tool.name}" again; skipped`);
      } else {
        tools.push(tool);
      }
    } catch (error) {
      warn(`loadTools: ${file} failed to load: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return tools;
}
