import type { Domain, GradeContext, Split, Task } from '../../domains/index.ts';
import { fieldsHoldingGold, parseNumber, statedAnswer } from '../../domains/index.ts';
import { finalResponse, gradePrediction } from './grading.ts';

/** One `domains test` check: passed, or failed with what is wrong named. */
export interface CheckResult {
  name: string;
  ok: boolean;
  message: string;
}

export type Loaded = { split: Split; task: Task }[];

export const check = (name: string, problems: string[], okMessage: string): CheckResult => ({
  name,
  ok: problems.length === 0,
  message:
    problems.length === 0
      ? okMessage
      : problems.slice(0, 5).join('; ') + (problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''),
});

/** Gold as text, where it is text or a number (workspace and structured answers are not compared as text). */
const goldText = (domain: Domain, task: Task): string | null => {
  const gold = domain.goldResponse(task);
  return typeof gold === 'string' || typeof gold === 'number' ? String(gold) : null;
};

/** Input fields that hold the gold answer, by field, with how many tasks and one example. */
export function goldInInputs(domain: Domain, loaded: Loaded): CheckResult {
  const byField = new Map<string, string[]>();
  for (const { task } of loaded) {
    const gold = goldText(domain, task);
    if (gold === null || task.workspace !== undefined) continue;
    for (const field of fieldsHoldingGold(task.input, gold))
      byField.set(field, [...(byField.get(field) ?? []), task.id]);
  }
  return check(
    'gold not in the inputs',
    [...byField].map(
      ([field, ids]) =>
        `input field "${field}" holds the gold answer in ${ids.length} of ${loaded.length} tasks (e.g. ${ids[0]}): leave it out of the inputs`,
    ),
    'no input holds its gold answer',
  );
}

/** Gold answers that are worked solutions under a metric that would compare them whole. */
export function workedSolutions(domain: Domain, loaded: Loaded): CheckResult {
  const whole = /^(exact|f1)/.test(domain.metric);
  const worked = whole
    ? loaded.filter(({ task }) => {
        const gold = goldText(domain, task);
        return gold?.includes('\n') && statedAnswer(gold) !== null;
      })
    : [];
  const example = worked[0] && statedAnswer(goldText(domain, worked[0].task)!);
  return check(
    'gold answers are answers',
    worked.length * 2 >= loaded.length && worked.length > 0
      ? [
          `${worked.length} of ${loaded.length} gold answers are worked solutions (task ${worked[0]!.task.id} ends in "${example}"), which ${domain.metric} would compare whole: take the answer out with --answer-pattern (e.g. "#### (.+)$")${parseNumber(example) !== null ? ' and grade it with --metric numeric' : ''}`,
        ]
      : [],
    'gold answers are not worked solutions compared whole',
  );
}

/** The input given back as the answer (whole, or one field of it) must not score 1. */
export async function trivialMetric(
  domain: Domain,
  samples: Loaded,
  ctx: GradeContext,
  limit: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<CheckResult> {
  const echoes = samples
    .filter(({ task }) => task.workspace === undefined && goldText(domain, task) !== null)
    .flatMap(({ task }) => {
      const input = task.input;
      const fields =
        typeof input === 'object' && input !== null && !Array.isArray(input)
          ? Object.entries(input)
              .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
              .map(([k, v]) => [`field "${k}"`, String(v)] as const)
          : [];
      const whole = typeof input === 'string' ? input : JSON.stringify(input);
      return [['the whole input', whole] as const, ...fields].map(([what, response]) => ({
        task,
        what,
        response,
      }));
    });
  const graded = await Promise.all(
    echoes.map((e) =>
      limit(async () => ({ ...e, score: (await gradePrediction(domain, e.task, e.response, ctx)).score })),
    ),
  );
  return check(
    'echoing the input scores 0',
    graded
      .filter((g) => g.score >= 1)
      .map(
        (g) => `answering task ${g.task.id} with ${g.what} of its input scores 1: the metric grades nothing`,
      ),
    `${graded.length} echoed inputs scored below 1`,
  );
}

/** Built-in wrong answers for a gold text: the next letter label, a perturbed number, the sentence shuffled (reversed). */
export function builtInWrong(gold: string): string[] {
  const out: string[] = [];
  if (/^[A-Za-z]$/.test(gold))
    out.push(gold === 'Z' ? 'A' : gold === 'z' ? 'a' : String.fromCharCode(gold.charCodeAt(0) + 1));
  const n = parseNumber(gold);
  if (n !== null) out.push(String(n + Math.max(1, Math.round(Math.abs(n) * 0.25))));
  const words = gold.trim().split(/\s+/);
  if (words.length >= 3 && new Set(words).size > 1) out.push([...words].reverse().join(' '));
  return out;
}

/**
 * Wrong answers per task (another task's gold, the domain's own wrong answers, the built-in ones) must
 * rarely score 1: more than one in ten at full marks says the metric cannot tell answers apart.
 */
export async function wrongAnswers(
  domain: Domain,
  samples: Loaded,
  all: Loaded,
  ctx: GradeContext,
  limit: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<CheckResult> {
  const golds = all.map(({ task }) => domain.goldResponse(task));
  const tries = samples.flatMap(({ task }) => {
    const gold = domain.goldResponse(task);
    const key = JSON.stringify(gold);
    const other = golds.find((r) => JSON.stringify(r) !== key) ?? 'definitely not the answer';
    const text = goldText(domain, task);
    const responses: unknown[] = [
      other,
      ...(domain.wrongResponses?.(task) ?? []),
      ...(text === null ? [] : builtInWrong(text)),
    ];
    return [
      ...new Map(
        responses.filter((r) => JSON.stringify(r) !== key).map((r) => [JSON.stringify(r), r]),
      ).values(),
    ].map((response) => ({ task, response }));
  });
  const graded = await Promise.all(
    tries.map((t) =>
      limit(async () => ({
        ...t,
        score: (await gradePrediction(domain, t.task, finalResponse(t.task, t.response), ctx)).score,
      })),
    ),
  );
  const full = graded.filter((g) => g.score >= 1);
  const show = (r: unknown) => {
    const s = typeof r === 'string' ? r : JSON.stringify(r);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  return check(
    'a wrong answer scores below 1',
    full.length * 10 > graded.length
      ? [
          `${full.length} of ${graded.length} wrong answers scored 1, so ${domain.metric} cannot tell them from gold`,
          ...full.map((g) => `task ${g.task.id} gave "${show(g.response)}" full marks`),
        ]
      : [],
    `${graded.length - full.length} of ${graded.length} wrong answers scored below 1`,
  );
}
