import type { ChatRequest } from '../types.ts';
import { FORMAT_LINE, type MetaPlan, planMeta } from './meta-plan.ts';
import { BREAKING_LINE, metaQuality, STALL_PHRASE } from './phrases.ts';
import type { KeyPart } from './rng.ts';
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
 * Step 0 views the task prompt; step 1 reads the evals folder's summary when the system prompt names
 * the folder; then the planned edits run one per step (planned again each step from the same tool
 * results and seed, so identical every time); then a summary without tool calls. A failed edit ends the
 * session with a summary.
 */
export function metaAction(req: ChatRequest, opts: MetaOptions): MetaAction {
  const step = assistantCount(req.messages);
  const systemText = textOf(req.messages, ['system']);
  const evalsDir = EVALS_DIR.exec(systemText)?.[1];
  const prelude: { call: MetaToolCall; note: string }[] = [
    {
      call: { name: 'editor', input: { command: 'view', path: TASK_PROMPT_PATH } },
      note: `I will start by reading the TaskAgent's prompt, ${TASK_PROMPT_PATH}.`,
    },
    ...(evalsDir === undefined
      ? []
      : [
          {
            call: { name: 'bash' as const, input: { command: `cat ${evalsDir}/summary.md` } },
            note: "Next I read the summary of the lineage's train results to see where it fails.",
          },
        ]),
  ];
  const opening = prelude[step];
  if (opening) return { kind: 'tool', ...opening };
  const results = toolResults(req.messages);
  const lines = viewedLines(results[0] ?? '');
  if (!lines) {
    return final(
      `I could not read ${TASK_PROMPT_PATH} (the view returned no numbered lines), so I made no change.`,
    );
  }
  const evalsText = evalsDir === undefined ? undefined : results[1];
  const parent =
    evalsText === undefined || looksLikeToolError(evalsText) ? undefined : parentFailures(evalsText);
  const failures = parent?.failures;
  const plan = planMeta({
    quality: metaQuality(systemText),
    taskLines: lines,
    metaLines: systemText.split('\n'),
    domains: opts.domains,
    failures,
    unparseable: parent?.unparseable,
    seed: opts.seed,
    variantId: opts.variantId ?? 0,
  });
  const edits = plannedEdits(plan, lines, opts.domains);
  const done = step - prelude.length;
  for (const [i, edit] of edits.slice(0, done).entries()) {
    const output = results[prelude.length + i];
    if (output === undefined || looksLikeToolError(output)) {
      const firstLine = (output ?? 'no result').trim().split('\n')[0];
      const before = edits.slice(0, i).map((e) => e.summary);
      return final(
        `The ${edit.call.name} call failed (${firstLine}), so I stopped there.` +
          (before.length > 0 ? ` Changes made before it: ${before.join('; ')}.` : ' No change was made.'),
      );
    }
  }
  const next = edits[done];
  if (next) return { kind: 'tool', call: next.call, note: `Next: ${next.summary}.` };
  const changes = edits.map((e) => e.summary);
  const read =
    failures === undefined
      ? ' I had no failures to read, so I guessed.'
      : ` I targeted the failures of ${[...failures].map(([d, f]) => `${d} (${Math.round(f * 100)}% failed)`).join(', ')}.`;
  return final(
    (changes.length > 0 ? `Changes: ${changes.join('; ')}.` : 'I found nothing worth changing this time.') +
      read +
      ` Proposal quality of this meta prompt: q=${plan.quality.toFixed(2)}.`,
  );
}

/** The system prompt names the evals folder this way (agents/meta/prompt.md). */
const EVALS_DIR = /Evaluation results are in (\S+) \(read only\)/;

/**
 * Failure fraction per domain, and the fraction of unparseable replies over all domains, of the last
 * variant in an evals summary.md (its lines read "- <domain>: <correct>/<tasks> correct, <w> wrong,
 * <u> unparseable, ..."); undefined when none is found.
 */
export function parentFailures(
  summary: string,
): { failures: Map<string, number>; unparseable: number } | undefined {
  const blocks = summary.split(/^## variant /m);
  const last = blocks.length > 1 ? blocks.at(-1)! : '';
  const failures = new Map<string, number>();
  let tasksSeen = 0;
  let unparseable = 0;
  for (const m of last.matchAll(/^- (\S+): (\d+)\/(\d+) correct(?:, \d+ wrong, (\d+) unparseable)?/gm)) {
    const tasks = Number(m[3]);
    if (tasks === 0) continue;
    failures.set(m[1]!, 1 - Number(m[2]) / tasks);
    tasksSeen += tasks;
    unparseable += Number(m[4] ?? 0);
  }
  return failures.size > 0 ? { failures, unparseable: unparseable / tasksSeen } : undefined;
}

function final(text: string): MetaAction {
  return { kind: 'final', content: `Simulated meta agent (sim model, not a real LLM). ${text}` };
}

/** The plan as tool calls: task-prompt inserts first (appended in order), then removals, then the meta edit. */
function plannedEdits(plan: MetaPlan, lines: readonly string[], domains: readonly string[]): PlannedEdit[] {
  if (plan.action === 'damage' && plan.formatLine !== undefined) {
    return [
      {
        call: {
          name: 'editor',
          input: { command: 'str_replace', path: TASK_PROMPT_PATH, old_str: plan.formatLine, new_str: '' },
        },
        summary: `removed the answer-format line from ${TASK_PROMPT_PATH} to simplify the prompt (a simulated damaging edit: replies become hard to parse)`,
      },
      ...metaEdits(plan),
    ];
  }
  if (plan.action === 'repair') {
    return [
      {
        call: {
          name: 'editor',
          input: {
            command: 'insert',
            path: TASK_PROMPT_PATH,
            insert_line: lines.length,
            new_str: FORMAT_LINE,
          },
        },
        summary: `restored the answer-format line in ${TASK_PROMPT_PATH}, because the parent's replies were unparseable`,
      },
      ...metaEdits(plan),
    ];
  }
  if (plan.action === 'break') {
    return [
      {
        call: {
          name: 'editor',
          input: { command: 'insert', path: TASK_MAIN_PATH, insert_line: 0, new_str: BREAKING_LINE },
        },
        summary: `inserted a line that is not valid TypeScript at the top of ${TASK_MAIN_PATH} (a simulated breaking edit the gate should reject)`,
      },
      ...metaEdits(plan),
    ];
  }
  const why = whyText(plan, domains);
  const adds = plan.task.filter((e) => e.kind === 'add');
  const removals = plan.task.filter((e) => e.kind === 'remove');
  return [
    ...adds.map((e, i): PlannedEdit => {
      const newLine = `- ${capitalise(e.phrase)}.`;
      return {
        call: {
          name: 'editor',
          input: {
            command: 'insert',
            path: TASK_PROMPT_PATH,
            insert_line: lines.length + i,
            new_str: newLine,
          },
        },
        summary: `added "${newLine}" to ${TASK_PROMPT_PATH} ${why}`,
      };
    }),
    ...removals.map(
      (e): PlannedEdit => ({
        call: {
          name: 'editor',
          input: { command: 'str_replace', path: TASK_PROMPT_PATH, old_str: e.line, new_str: '' },
        },
        summary: `removed the line "${e.line}" from ${TASK_PROMPT_PATH} ${why}`,
      }),
    ),
    ...metaEdits(plan),
  ];
}

function metaEdits(plan: MetaPlan): PlannedEdit[] {
  const edit = plan.meta;
  if (edit === undefined) return [];
  if (edit.kind === 'stall') {
    const line = capitalise(STALL_PHRASE);
    return [
      {
        call: { name: 'bash', input: { command: `printf '\\n- %s.\\n' '${line}' >> ${META_PROMPT_PATH}` } },
        summary: `appended "- ${line}." to ${META_PROMPT_PATH} to be more careful (a simulated self-modification that stalls later sessions)`,
      },
    ];
  }
  if (edit.kind === 'remove') {
    return [
      {
        call: {
          name: 'editor',
          input: { command: 'str_replace', path: META_PROMPT_PATH, old_str: edit.line, new_str: '' },
        },
        summary: `removed "${edit.line}" from ${META_PROMPT_PATH}, which was making my proposals worse`,
      },
    ];
  }
  const line = capitalise(edit.phrase.phrase);
  return [
    {
      call: { name: 'bash', input: { command: `printf '\\n- %s.\\n' '${line}' >> ${META_PROMPT_PATH}` } },
      summary: `appended "- ${line}." to ${META_PROMPT_PATH} for later generations (simulated quality change ${signed(edit.phrase.quality)})`,
    },
  ];
}

function whyText(plan: MetaPlan, domains: readonly string[]): string {
  const on = domains.join(', ');
  const size = plan.task.length > 1 ? `one of ${plan.task.length} related edits, ` : '';
  return plan.gain > 0
    ? `(${size}expected to help on ${on}: simulated gain ${signed(plan.gain)})`
    : `(${size}a simulated poor proposal: change ${signed(plan.gain)} on ${on})`;
}

function signed(x: number): string {
  return `${x > 0 ? '+' : ''}${x.toFixed(2)}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
