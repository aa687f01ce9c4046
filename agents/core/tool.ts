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

/**
 * Validates tool input. Problems are listed one per field, located from the input's root, e.g.
 * `input.command: expected one of "view"|"create"`, `input.view_range[1]: expected number, received string`.
 */
export function validateToolInput<T>(tool: Tool<T>, input: unknown): InputCheck<T> {
  const parsed = tool.inputSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: formatIssues(parsed.error) };
}

export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
    return `input${path}: ${issue.message.replace(/^Invalid input: /, '')}`;
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

/** `onWarning` is told of each file skipped, with what to do; the agent's entry point decides where it goes. */
export type LoadToolsOptions = { onWarning: (message: string) => void };

/** What model APIs accept as a tool name (OpenAI's rule, the strictest of the providers). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Discovers tools in `dir`: every `*.ts` file (tests and `.d.ts` excluded) that exports a tool. The
 * default export may be a Tool or a factory `(ctx) => Tool`; named exports count when they are Tool
 * objects (named functions are never called: `createBashTool` and the like take options of their own).
 * A file that fails to load or exports no usable tool is skipped with a warning that names it, so one
 * broken file costs only its own tools. Tools come back sorted by file name.
 */
export async function loadTools(dir: string, ctx: ToolContext, options: LoadToolsOptions): Promise<Tool[]> {
  const warn = options.onWarning;
  const files = (await readdir(dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .sort();
  const tools: Tool[] = [];
  for (const file of files) {
    const path = join(dir, file);
    let found: Tool[];
    try {
      found = await toolsOf((await import(pathToFileURL(path).href)) as Record<string, unknown>, ctx);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      warn(
        `loadTools: skipped ${path}: it failed to load: ${message}\nFix the error, or move the file out of ${dir}.`,
      );
      continue;
    }
    if (found.length === 0) {
      warn(
        `loadTools: skipped ${path}: it exports no tool. A tool file exports (default or named) an object with name, description, inputSchema (zod) and run, or default-exports a function (ctx) => such an object.`,
      );
    }
    for (const tool of found) {
      const problem = toolProblem(tool, tools);
      if (!problem) {
        tools.push(tool);
        continue;
      }
      warn(`loadTools: skipped tool "${tool.name}" of ${path}: ${problem}`);
      await tool.close?.().catch(() => undefined);
    }
  }
  return tools;
}

/** The default export (a tool, or a factory called with `ctx`) first, then named tool objects by name. */
async function toolsOf(module: Record<string, unknown>, ctx: ToolContext): Promise<Tool[]> {
  const found: Tool[] = [];
  for (const [key, value] of Object.entries(module).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const candidate =
      key === 'default' && typeof value === 'function' ? await (value as ToolFactory)(ctx) : value;
    if (isTool(candidate) && !found.includes(candidate)) {
      if (key === 'default') found.unshift(candidate);
      else found.push(candidate);
    }
  }
  return found;
}

function toolProblem(tool: Tool, loaded: Tool[]): string | undefined {
  if (!TOOL_NAME.test(tool.name)) {
    return 'its name must be 1 to 64 letters, digits, "_" or "-" (model APIs reject other names).';
  }
  if (loaded.some((t) => t.name === tool.name)) {
    return 'a tool of that name was already loaded from an earlier file; give one of them another name.';
  }
  let type: unknown;
  try {
    type = toToolSpec(tool).inputSchema.type;
  } catch (error) {
    return `its inputSchema cannot be described as JSON Schema for the model: ${error instanceof Error ? error.message : String(error)}`;
  }
  return type === 'object'
    ? undefined
    : 'its inputSchema must be a z.object(...) (tool input is always a JSON object).';
}
