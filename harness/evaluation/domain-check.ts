import pLimit from 'p-limit';
import type { GradeContext } from '../../domains/index.ts';
import { ALL_SPLITS, DOMAIN_NAME, type Domain, type SkippedRow, type Split } from '../../domains/index.ts';
import { finalResponse, gradePrediction } from './grading.ts';
import {
  type CheckResult,
  check,
  goldInInputs,
  type Loaded,
  trivialMetric,
  workedSolutions,
  wrongAnswers,
} from './misconfiguration.ts';

export type { CheckResult } from './misconfiguration.ts';

export interface TaskGrade {
  id: string;
  split: Split;
  score: number;
  detail: string | null;
}

/** Counts of one group of tasks, whose ids start with `group/` (an exercism language). */
export interface GroupCount {
  group: string;
  /** Graded tasks that scored 1. */
  passed: number;
  failed: number;
  /** Tasks the domain skipped (e.g. a language whose toolchain is missing). */
  skipped: number;
}

/** What `hyperagents domains test` prints with --json. */
export interface DomainReport {
  domain: string;
  tasks: number;
  /** Mean over the tasks graded; with answers, over every task (one without an answer scores 0). */
  score: number;
  results: TaskGrade[];
  skipped: SkippedRow[];
  checks: CheckResult[];
  /** Per group, when task ids name one (`python/bowling`). */
  groups?: GroupCount[];
}

const groupOf = (id: string): string | null => (id.includes('/') ? id.slice(0, id.indexOf('/')) : null);

function countGroups(
  results: readonly TaskGrade[],
  skipped: readonly SkippedRow[],
): GroupCount[] | undefined {
  const groups = new Map<string, GroupCount>();
  const at = (group: string) => {
    const found = groups.get(group) ?? { group, passed: 0, failed: 0, skipped: 0 };
    groups.set(group, found);
    return found;
  };
  for (const r of results) {
    const group = groupOf(r.id);
    if (group !== null) at(group)[r.score >= 1 ? 'passed' : 'failed']++;
  }
  for (const s of skipped) {
    const group = s.id === undefined ? null : groupOf(s.id);
    if (group !== null) at(group).skipped++;
  }
  return groups.size === 0 ? undefined : [...groups.values()].sort((a, b) => a.group.localeCompare(b.group));
}

export interface CheckOptions {
  /** Responses to grade by task id; without them every gold response is graded and conformance checked. */
  answers?: ReadonlyMap<string, unknown>;
  /** Graders run at once (exercise specs are separate processes). */
  concurrency?: number;
  /** Tasks per split given a wrong answer in the conformance check. */
  wrongSamples?: number;
}

async function loadAll(domain: Domain): Promise<Loaded> {
  const out: Loaded = [];
  for (const split of domain.splits) for (const task of await domain.load(split)) out.push({ split, task });
  return out;
}

/** The ids of every task of the domain, every split, in load order. */
export async function loadTaskIds(domain: Domain): Promise<string[]> {
  return (await loadAll(domain)).map(({ task }) => task.id);
}

function describeChecks(domain: Domain): CheckResult {
  const problems = [
    !DOMAIN_NAME.test(domain.name) && `name "${domain.name}" is not lower-case letters, digits and dashes`,
    domain.description.trim() === '' && 'the description is empty',
    !domain.splits.includes('train') && 'there is no train split',
    domain.splits.some((s) => !ALL_SPLITS.includes(s)) && 'a split is not train, val or test',
    new Set(domain.splits).size !== domain.splits.length && 'a split is declared twice',
    !(Number.isInteger(domain.stagedSamples) && domain.stagedSamples >= 1) &&
      'stagedSamples is not a whole number ≥ 1',
  ].filter((p): p is string => typeof p === 'string');
  return check(
    'declares itself',
    problems,
    `${domain.splits.join(', ')}; staged sample ${domain.stagedSamples}`,
  );
}

function structureChecks(first: Loaded, second: Loaded): CheckResult[] {
  const ids = new Map<string, Split[]>();
  for (const { split, task } of first) ids.set(task.id, [...(ids.get(task.id) ?? []), split]);
  const duplicated = [...ids].filter(([, splits]) => splits.length > 1);
  const emptyIds = first.filter(({ task }) => typeof task.id !== 'string' || task.id === '');
  const inputs = new Map<string, Split>();
  const shared: string[] = [];
  for (const { split, task } of first) {
    const key = JSON.stringify(task.input);
    const seen = inputs.get(key);
    if (seen !== undefined && seen !== split)
      shared.push(`task ${task.id} (${split}) has the same input as one in ${seen}`);
    inputs.set(key, split);
  }
  const same = JSON.stringify(first) === JSON.stringify(second);
  return [
    check('has tasks', first.length === 0 ? ['no tasks were loaded'] : [], `${first.length} tasks`),
    check(
      'ids unique',
      [
        ...emptyIds.map(({ split }) => `a task in ${split} has an empty id`),
        ...duplicated.map(([id, s]) => `id ${id} appears in ${s.join(', ')}`),
      ],
      'every id is unique',
    ),
    check('splits disjoint', shared, 'no task is in two splits'),
    check(
      'loading deterministic',
      same ? [] : ['loading twice gave different tasks, ids or order'],
      'two loads gave the same tasks in the same order',
    ),
  ];
}

/**
 * Checks a domain the way its author needs: without answers, every gold response must score 1 and the
 * conformance checks run; with answers, those are graded. Never throws for a domain's own failures.
 */
export async function checkDomain(
  domain: Domain,
  ctx: GradeContext,
  options: CheckOptions = {},
): Promise<DomainReport> {
  const checks: CheckResult[] = [describeChecks(domain)];
  let loaded: Loaded = [];
  try {
    loaded = await loadAll(domain);
    checks.push(...structureChecks(loaded, await loadAll(domain)));
  } catch (error) {
    checks.push({ name: 'loads', ok: false, message: (error as Error).message });
  }
  const limit = pLimit(options.concurrency ?? 2);
  const graded =
    options.answers === undefined ? loaded : loaded.filter(({ task }) => options.answers!.has(task.id));
  const results = await Promise.all(
    graded.map(({ split, task }) =>
      limit(async (): Promise<TaskGrade> => {
        const response = finalResponse(
          task,
          options.answers === undefined ? domain.goldResponse(task) : options.answers.get(task.id),
        );
        const g = await gradePrediction(domain, task, response, ctx);
        return { id: task.id, split, score: g.score, detail: g.detail ?? g.error };
      }),
    ),
  );
  checks.push(
    check('configured for its source', [...(domain.configProblems ?? [])], 'no configuration mistake found'),
    goldInInputs(domain, loaded),
    workedSolutions(domain, loaded),
  );
  if (options.answers === undefined) {
    const failing = results
      .filter((r) => r.score < 1)
      .map((r) => `${r.id} (${r.split}) scored ${r.score}${r.detail ? `: ${r.detail}` : ''}`);
    checks.push(check('gold answers score 1', failing, `all ${results.length} gold answers scored 1`));
    const samples = domain.splits.flatMap((split) =>
      loaded.filter((l) => l.split === split).slice(0, options.wrongSamples ?? 2),
    );
    checks.push(await trivialMetric(domain, samples, ctx, limit));
    checks.push(await wrongAnswers(domain, samples, loaded, ctx, limit));
  } else {
    const known = new Set(loaded.map(({ task }) => task.id));
    const unknown = [...options.answers.keys()].filter((id) => !known.has(id));
    const missing = loaded.filter(({ task }) => !options.answers!.has(task.id));
    // A task without an answer scores 0: 10 answers of 1,319 tasks cannot make a score of 0.9.
    results.push(
      ...missing.map(({ split, task }) => ({ id: task.id, split, score: 0, detail: 'no answer given' })),
    );
    checks.push(
      check(
        'answers match tasks',
        unknown.map((id) => `no task has id ${id}`),
        `${results.length - missing.length} answers graded${missing.length > 0 ? `; ${missing.length} tasks had no answer and score 0` : ''}`,
      ),
    );
  }
  const score = results.length === 0 ? 0 : results.reduce((sum, r) => sum + r.score, 0) / results.length;
  const groups = countGroups(results, domain.skipped);
  return {
    domain: domain.name,
    tasks: loaded.length,
    score,
    results,
    skipped: [...domain.skipped],
    checks,
    ...(groups === undefined ? {} : { groups }),
  };
}
