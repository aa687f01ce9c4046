import type { ChatRequest, Message, ToolSpec } from '../../types.ts';
import type { SimModel } from '../sim-model.ts';

/**
 * Drives the sim MetaAgent through the agent loop's shape against an in-memory workspace that follows
 * the editor and bash tool contracts closely enough for the edits the sim makes. For tests only.
 */

export const META_TOOLS: ToolSpec[] = [
  { name: 'bash', description: 'Run a shell command', inputSchema: { type: 'object' } },
  { name: 'editor', description: 'View and edit files', inputSchema: { type: 'object' } },
];

export type Call = { id?: string; name: string; input: Record<string, unknown> };

/** Files by path (relative to the worktree, or absolute for the evals folder). */
export function workspace(initial: Record<string, string>) {
  const files = new Map<string, string>(Object.entries(initial));
  const run = (call: Call): string => {
    if (call.name === 'bash') {
      const command = String(call.input.command);
      const cat = /^cat (\S+)$/.exec(command);
      if (cat) return files.get(cat[1]!) ?? `cat: ${cat[1]}: No such file or directory\n[exit code 1]`;
      const m = /^printf '\\n- %s\.\\n' '([^']+)' >> (\S+)$/.exec(command);
      if (!m) return `unsupported command\n[exit code 1]`;
      files.set(m[2]!, `${files.get(m[2]!) ?? ''}\n- ${m[1]}.\n`);
      return '';
    }
    const { command, path } = call.input as { command: string; path: string };
    const text = files.get(path);
    if (text === undefined) return `Error: ${path} does not exist`;
    const lines = text.split('\n');
    if (command === 'view') return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
    if (command === 'insert') {
      const at = call.input.insert_line as number;
      if (at > lines.length) return `Error: insert_line ${at} is past the end of ${path}`;
      lines.splice(at, 0, ...String(call.input.new_str).split('\n'));
      files.set(path, lines.join('\n'));
      return `Inserted after line ${at} of ${path}.`;
    }
    if (command === 'str_replace') {
      const old = String(call.input.old_str);
      if (text.split(old).length !== 2) return `Error: old_str must occur exactly once in ${path}`;
      files.set(path, text.replace(old, String(call.input.new_str)));
      return `Replaced text in ${path}.`;
    }
    return `Error: unknown command ${command}`;
  };
  return { files, run };
}

function parseTextCalls(content: string): Call[] {
  return [...content.matchAll(/<json>([\s\S]*?)<\/json>/g)].map((m) => {
    const { tool_name, tool_input } = JSON.parse(m[1]!) as {
      tool_name: string;
      tool_input: Record<string, unknown>;
    };
    return { name: tool_name, input: tool_input };
  });
}

export interface SessionResult {
  calls: Call[];
  final: string;
  stopReasons: string[];
}

/** One MetaAgent session: system prompt, a user request, then model turns and tool results until done. */
export async function metaSession(opts: {
  sim: SimModel;
  files: ReturnType<typeof workspace>;
  system: string;
  variantId: number;
  protocol?: 'native' | 'text';
  /** Tool results for edits (anything but view and cat) are replaced by this error text. */
  failEdits?: string;
}): Promise<SessionResult> {
  const protocol = opts.protocol ?? 'native';
  const messages: Message[] = [
    { role: 'system', content: opts.system },
    { role: 'user', content: 'Improve the agent. Iterations left: 3.' },
  ];
  const calls: Call[] = [];
  const stopReasons: string[] = [];
  for (let turn = 0; turn < 12; turn++) {
    const req: ChatRequest = protocol === 'native' ? { messages, tools: META_TOOLS } : { messages };
    const result = await opts.sim.complete(req, { runId: 'r', variantId: opts.variantId, role: 'meta' });
    if (!result.ok) throw new Error(result.error.message);
    const { message, stopReason } = result.response;
    stopReasons.push(stopReason);
    messages.push({
      role: 'assistant',
      content: message.content,
      ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    });
    const turnCalls: Call[] =
      protocol === 'native' ? (message.toolCalls ?? []) : parseTextCalls(message.content);
    if (turnCalls.length === 0) return { calls, final: message.content, stopReasons };
    for (const call of turnCalls) {
      calls.push({ name: call.name, input: call.input });
      const reads = call.input.command === 'view' || String(call.input.command).startsWith('cat ');
      const output = opts.failEdits !== undefined && !reads ? opts.failEdits : opts.files.run(call);
      if (protocol === 'native' && call.id !== undefined) {
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: output });
      } else {
        messages.push({
          role: 'user',
          content: `Tool result:\n${JSON.stringify({ tool_name: call.name, tool_output: output })}`,
        });
      }
    }
  }
  throw new Error('the sim meta agent did not finish within 12 turns');
}
