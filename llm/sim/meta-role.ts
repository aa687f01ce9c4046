import type { ChatRequest } from '../types.ts';
import {
  BREAKING_EDIT_RATE,
  BREAKING_LINE,
  hasPhrase,
  META_PHRASES,
  META_PROMPT_EDIT_RATE,
  metaQuality,
  netEffect,
  normalizeText,
  TASK_PHRASES,
  type TaskPhrase,
} from './phrases.ts';
import { createRng, type KeyPart, pick } from './rng.ts';
import { assistantCount, looksLikeToolError, textOf, toolResults, viewedLines } from './transcript.ts';

export const TASK_PROMPT_PATH = 'agents/task/prompt.md';
export const TASK_MAIN_PATH = 'agents/task/main.ts';
export const META_PROMPT_PATH = 'agents/meta/prompt.md';

export type MetaToolCall = { name: 'editor' | 'bash'; input: Record<string, unknown> };
export type MetaAction =
  | { kind: 'tool'; call: MetaToolCall; note: string }
  | { kind: 'final'; content: string };

interface PlannedEdit {
  call: MetaToolCall;
  /** What changed and why, for the final summary. */
  summary: string;
}

export interface MetaOptions {
  seed: KeyPart;
  variantId: number | null;
  domains: readonly string[];
}

/**
 * The sim MetaAgent's next move, derived only from the request: step = assistant messages so far.
 * Step 0 views the task prompt; then the planned edits run one per step (each planned again from the
 * same view result and seed, so identical every time); then a summary without tool calls. A failed
 * tool call ends the session with a summary.
 */
export function metaAction(req: ChatRequest, opts: MetaOptions): MetaAction {
  const step = assistantCount(req.messages);
  if (step === 0) {
    return {
      kind: 'tool',
      call: { name: 'editor', input: { command: 'view', path: TASK_PROMPT_PATH } },
      note: `I will start by reading the TaskAgent's prompt, ${TASK_PROMPT_PATH}.`,
    };
  }
  const results = toolResults(req.messages);
  const lines = viewedLines(results[0] ?? '');
  if (!lines) {
    return final(
      `I could not read ${TASK_PROMPT_PATH} (the view returned no numbered lines), so I made no change.`,
    );
  }
  const systemText = textOf(req.messages, ['system']);
  const plan = planEdits(lines, systemText, opts);
  const made = plan.edits.slice(0, step - 1);
  for (const [i, edit] of made.entries()) {
    const output = results[i + 1];
    if (output === undefined || looksLikeToolError(output)) {
      const firstLine = (output ?? 'no result').trim().split('\n')[0];
      const before = made.slice(0, i).map((e) => e.summary);
      return final(
        `The ${edit.call.name} call failed (${firstLine}), so I stopped there.` +
          (before.length > 0 ? ` Changes made before it: ${before.join('; ')}.` : ' No change was made.'),
      );
    }
  }
  const next = plan.edits[step - 1];
  if (next) return { kind: 'tool', call: next.call, note: `Next: ${next.summary}.` };
  const changes = plan.edits.map((e) => e.summary);
  return final(
    (changes.length > 0 ? `Changes: ${changes.join('; ')}.` : 'I found nothing worth changing this time.') +
      ` Proposal quality of this meta prompt: q=${plan.quality.toFixed(2)}.`,
  );
}

function final(text: string): MetaAction {
  return { kind: 'final', content: `Simulated meta agent (sim model, not a real LLM). ${text}` };
}

/** The full, deterministic plan for this variant given the task prompt's lines and the meta prompt. */
function planEdits(
  lines: readonly string[],
  systemText: string,
  opts: MetaOptions,
): { edits: PlannedEdit[]; quality: number } {
  const rng = createRng(opts.seed, opts.variantId ?? 0, 'meta');
  const [rBreak, rGood, rPick, rMeta, rMetaPick] = [rng(), rng(), rng(), rng(), rng()] as const;
  const quality = metaQuality(systemText);
  const edits: PlannedEdit[] = [];
  if (rBreak < BREAKING_EDIT_RATE) {
    edits.push({
      call: {
        name: 'editor',
        input: { command: 'insert', path: TASK_MAIN_PATH, insert_line: 0, new_str: BREAKING_LINE },
      },
      summary: `inserted a line that is not valid TypeScript at the top of ${TASK_MAIN_PATH} (a simulated breaking edit the gate should reject)`,
    });
  } else {
    const proposal = proposeTaskEdit(lines, opts.domains, rGood < quality, rPick);
    if (proposal) edits.push(proposal);
  }
  const normalizedSystem = normalizeText(systemText);
  const absentMeta = META_PHRASES.filter((p) => !hasPhrase(normalizedSystem, p));
  const metaPhrase = pick(absentMeta, rMetaPick);
  if (rMeta < META_PROMPT_EDIT_RATE && metaPhrase) {
    const line = capitalise(metaPhrase);
    edits.push({
      call: { name: 'bash', input: { command: `printf '\\n- %s.\\n' '${line}' >> ${META_PROMPT_PATH}` } },
      summary: `appended "- ${line}." to ${META_PROMPT_PATH} so that later proposals are better grounded`,
    });
  }
  return { edits, quality };
}

/** A good (or bad) phrase edit; when the wanted kind has no candidate, the other kind. */
function proposeTaskEdit(
  lines: readonly string[],
  domains: readonly string[],
  good: boolean,
  r: number,
): PlannedEdit | undefined {
  const normalized = normalizeText(lines.join('\n'));
  const present = (p: TaskPhrase) => hasPhrase(normalized, p.phrase);
  const lineOf = (p: TaskPhrase) => lines.find((l) => hasPhrase(normalizeText(l), p.phrase));
  const candidates = (helpful: boolean): PlannedEdit[] => {
    const wanted = (p: TaskPhrase) => (helpful ? netEffect(p, domains) > 0 : netEffect(p, domains) < 0);
    const adds = TASK_PHRASES.filter((p) => wanted(p) && !present(p)).map((p) =>
      addPhrase(p, lines, domains, helpful),
    );
    const removals = TASK_PHRASES.filter(
      (p) => !wanted(p) && netEffect(p, domains) !== 0 && lineOf(p) !== undefined,
    ).map((p) => removePhrase(p, lineOf(p)!, domains, helpful));
    return [...adds, ...removals];
  };
  const first = candidates(good);
  return pick(first.length > 0 ? first : candidates(!good), r);
}

function addPhrase(
  p: TaskPhrase,
  lines: readonly string[],
  domains: readonly string[],
  good: boolean,
): PlannedEdit {
  const newLine = `- ${capitalise(p.phrase)}.`;
  return {
    call: {
      name: 'editor',
      input: { command: 'insert', path: TASK_PROMPT_PATH, insert_line: lines.length, new_str: newLine },
    },
    summary: `added "${newLine}" to ${TASK_PROMPT_PATH} ${why(p, domains, good, 'should help')}`,
  };
}

function removePhrase(p: TaskPhrase, line: string, domains: readonly string[], good: boolean): PlannedEdit {
  return {
    call: {
      name: 'editor',
      input: { command: 'str_replace', path: TASK_PROMPT_PATH, old_str: line, new_str: '' },
    },
    summary: `removed the line "${line}" from ${TASK_PROMPT_PATH} ${why(p, domains, good, 'was hurting')}`,
  };
}

function why(p: TaskPhrase, domains: readonly string[], good: boolean, claim: string): string {
  const effect = netEffect(p, domains);
  const signed = `${effect > 0 ? '+' : ''}${effect.toFixed(2)}`;
  const on = domains.join(', ');
  return good
    ? `because "${p.phrase}" ${claim} on ${on} (simulated effect ${signed})`
    : `(a simulated poor proposal: "${p.phrase}" has effect ${signed} on ${on})`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
