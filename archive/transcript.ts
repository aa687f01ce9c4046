import { z } from 'zod';
import { META_TRANSCRIPT, readAgentFile, variantLogParts } from './run-folder.ts';

const Message = z.object({
  role: z.string(),
  content: z.string().catch(''),
  toolCalls: z
    .array(z.object({ name: z.string(), input: z.unknown() }))
    .optional()
    .catch(undefined),
});
export type TranscriptMessage = z.infer<typeof Message>;

const Transcript = z.object({
  status: z.string().catch('unknown'),
  finalText: z.string().nullable().optional().catch(null),
  toolCalls: z.number().optional().catch(undefined),
  costUsd: z.number().optional().catch(undefined),
  messages: z.array(Message).catch([]),
});

export interface MetaTranscript {
  status: string;
  /**
   * The MetaAgent's own account of its change: its final reply, when it finished (`done`). A MetaAgent
   * stopped at a limit or by an error wrote no account: its last message is only where it stopped.
   */
  summary: string | null;
  /** Its last message with text, whatever it was. */
  lastMessage: string | null;
  toolCalls: number | null;
  costUsd: number | null;
  messages: TranscriptMessage[];
}

/**
 * The MetaAgent's transcript of a variant (logs/variant-<id>/meta-transcript.json), or null when it
 * left none. The file is agent-written: read without following links, parsed leniently, never trusted.
 */
export function readMetaTranscript(runDir: string, variantId: number): MetaTranscript | null {
  const text = readAgentFile(runDir, [...variantLogParts(variantId), META_TRANSCRIPT]);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = Transcript.safeParse(raw);
  if (!parsed.success) return null;
  const t = parsed.data;
  const lastAssistant = t.messages.filter((m) => m.role === 'assistant' && m.content.trim() !== '').at(-1);
  return {
    status: t.status,
    summary: t.status === 'done' ? (t.finalText ?? lastAssistant?.content ?? null) : null,
    lastMessage: lastAssistant?.content ?? null,
    toolCalls: t.toolCalls ?? null,
    costUsd: t.costUsd ?? null,
    messages: t.messages,
  };
}
