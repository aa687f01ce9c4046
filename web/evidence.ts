import type { MetaTranscript, VariantView } from '../archive/index.ts';

/**
 * What a variant's MetaAgent did, as the page tells it: how it ended, the tool calls it made, the model
 * calls the harness recorded for it, the files its change touched, and its own account only when it
 * finished and wrote one.
 */
export interface MetaAccount {
  /** How it ended, in words: "finished", "stopped at its tool-call limit", "timed out after 15 s", ... */
  ended: string;
  /** Whether it ended on its own (`done`); otherwise its last message is not a summary. */
  finished: boolean;
  /** Tool calls from its transcript, or counted in its log when it left none; null when neither says. */
  toolCalls: number | null;
  /** Where the tool calls were counted. */
  toolCallsFrom: 'transcript' | 'log' | null;
  /** The model calls the harness recorded for the MetaAgent (a fact the agent cannot change). */
  modelCalls: number;
  /** The files its change touched, as the harness recorded them. */
  changedFiles: string[];
  /** Its own account of its change: only when it finished. */
  summary: string | null;
  /** Its last message with text (where it stopped, when it did not finish). */
  lastMessage: string | null;
}

/** How a transcript's status reads on the page. */
const ENDINGS: Record<string, string> = {
  done: 'finished',
  max_tool_calls: 'stopped at its tool-call limit',
  max_turns: 'stopped at its turn limit',
  max_wall_time: 'stopped at its time limit',
  max_cost: 'stopped at its cost limit',
  error: 'stopped by a model error',
};

/** An assistant step in the MetaAgent's log, as agents/meta/main.ts writes it: `[calls NAME]` per tool call. */
const LOGGED_CALL = /\[calls [^\]\n]*\]/g;

/** Tool calls written in a MetaAgent's log; null when its log says nothing of its steps. Pure. */
export function toolCallsInLog(log: string): number | null {
  const steps = log.split('\n').filter((line) => /^\[meta-agent\] (assistant|user|system):/.test(line));
  if (steps.length === 0) return null;
  return steps.reduce((n, line) => n + (line.match(LOGGED_CALL)?.length ?? 0), 0);
}

/**
 * The account of variant `variant`'s MetaAgent, from its transcript when it left one, else from what the
 * harness recorded (its failure) and its log. null for the initial agent, which no MetaAgent made. Pure.
 */
export function metaAccount(
  variant: Pick<VariantView, 'parent' | 'failureReason' | 'changedFiles'>,
  transcript: MetaTranscript | null,
  metaLog: string | null,
  modelCalls: number,
): MetaAccount | null {
  if (variant.parent === null) return null;
  const facts = { modelCalls, changedFiles: variant.changedFiles };
  if (transcript !== null) {
    return {
      ...facts,
      ended: ENDINGS[transcript.status] ?? `ended with status ${transcript.status}`,
      finished: transcript.status === 'done',
      toolCalls:
        transcript.toolCalls ?? transcript.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0),
      toolCallsFrom: 'transcript',
      summary: transcript.summary,
      lastMessage: transcript.lastMessage,
    };
  }
  const fromLog = metaLog === null ? null : toolCallsInLog(metaLog);
  const reason = variant.failureReason;
  return {
    ...facts,
    ended:
      reason?.startsWith('MetaAgent ') === true
        ? reason.slice('MetaAgent '.length)
        : 'left no transcript, so how it ended is not known',
    finished: false,
    toolCalls: fromLog,
    toolCallsFrom: fromLog === null ? null : 'log',
    summary: null,
    lastMessage: null,
  };
}
