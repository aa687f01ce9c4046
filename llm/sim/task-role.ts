import type { ChatRequest } from '../types.ts';
import { isFlat, pCorrect, type SimLandscape, splitKind } from './landscape.ts';
import { hasPhrase, normalizeText, PARSE_FAILURE_RATE, parseFailureRate, STEP_BY_STEP } from './phrases.ts';
import { hash01, hashKey, type KeyPart, pick } from './rng.ts';
import { canonicalJson, jsonValuesIn, longestStringLeaf, textOf } from './transcript.ts';
import { isWorkspaceAnswer, type SimTurn, type SimWorkspace, workspaceTurn } from './workspace-role.ts';

export interface SimTask {
  id: string;
  input: unknown;
  answer: unknown;
  /** The task's split; overfitting strategies help on train and hurt elsewhere (unknown: neither). */
  split?: string;
  /** Set for a workspace task (its `answer` is then the reference files, `{files: {path: content}}`). */
  workspace?: SimWorkspace;
  /** A canary (no correct answer): the sim never gives its `answer`, as an honest agent would not. */
  canary?: boolean;
}

interface Entry {
  domain: string;
  task: SimTask;
  leaf: string;
}

/** Which attempt a task request belongs to, and the landscape's noise level (0 to 1, `--sim-noise`). */
export interface AttemptDraw {
  attempt: number;
  noise: number;
}

const FIRST_ATTEMPT: AttemptDraw = { attempt: 0, noise: 0 };

/** Shortest string leaf the fallback match trusts; shorter ones would match by accident. */
const MIN_LEAF = 4;

/** The tasks the harness registered, indexed by canonical input. */
export class TaskBook {
  private readonly byInput = new Map<string, Entry[]>();
  private readonly byDomain = new Map<string, Map<string, Entry>>();
  /** Thresholds by seed, domain and split; cleared when tasks are registered. */
  private readonly thresholds = new Map<string, Map<string, number>>();

  register(domain: string, tasks: readonly SimTask[]): void {
    this.thresholds.clear();
    let domainTasks = this.byDomain.get(domain);
    if (!domainTasks) {
      domainTasks = new Map();
      this.byDomain.set(domain, domainTasks);
    }
    for (const task of tasks) {
      const previous = domainTasks.get(task.id);
      if (previous) this.unindex(previous);
      const entry: Entry = { domain, task, leaf: longestStringLeaf(task.input) };
      domainTasks.set(task.id, entry);
      const key = canonicalJson(task.input);
      this.byInput.set(key, [...(this.byInput.get(key) ?? []), entry]);
    }
  }

  /**
   * The task's correctness threshold in [0, 1): stratified over the tasks of its domain and split, so
   * a split's thresholds are spread evenly (one per 1/N band, in an order and at a position within the
   * band fixed by the seed). A split then scores close to P(correct) for every seed, instead of sitting
   * on a flat stretch where a chance gap between draws hides a change of P(correct). Computed once per
   * (seed, domain, split) until more tasks are registered: a call costs a lookup, not a pass over the split.
   */
  threshold(seed: KeyPart, domain: string, task: SimTask): number {
    const key = `${String(seed)}\u0000${domain}\u0000${task.split ?? '\u0000'}`;
    let table = this.thresholds.get(key);
    if (table === undefined) {
      table = this.splitThresholds(seed, domain, task.split);
      this.thresholds.set(key, table);
    }
    return table.get(task.id) ?? this.splitThresholds(seed, domain, task.split, task).get(task.id) ?? 0;
  }

  /** Thresholds of every task of a domain's split (and of `extra`, a task not registered there). */
  private splitThresholds(
    seed: KeyPart,
    domain: string,
    split: string | undefined,
    extra?: SimTask,
  ): Map<string, number> {
    const group = [...(this.byDomain.get(domain)?.values() ?? [])]
      .map((e) => e.task)
      .filter((t) => t.split === split);
    const size = Math.max(1, group.length);
    if (extra !== undefined) group.push(extra);
    const ranked = group
      .map((task) => ({ id: task.id, order: hash01(seed, domain, task.id, 'task-order') }))
      .sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const table = new Map<string, number>();
    ranked.forEach(({ id }, rank) => {
      table.set(id, (rank + hash01(seed, domain, id, 'task-jitter')) / size);
    });
    return table;
  }

  /**
   * The threshold a task's answer on attempt `draw.attempt` is compared with. With noise 0 it is the fixed
   * one (`threshold`), the same on every attempt. With noise L, each attempt redraws it with probability L
   * (a uniform draw keyed by seed, domain, task, attempt and the prompt the model was shown), so the same
   * prompt scores differently on a second attempt while every attempt still scores P(correct) on average.
   * Two variants with different prompts draw apart, as two samples of a real model do, so the best of many
   * is lucky as often as a real run's is (the winner's curse). Noise 1: every attempt is independent.
   */
  attemptThreshold(seed: KeyPart, domain: string, task: SimTask, draw: AttemptDraw, prompt: string): number {
    const fixed = this.threshold(seed, domain, task);
    if (draw.noise <= 0) return fixed;
    const shown = hash01(prompt);
    if (hash01(seed, domain, task.id, 'noise', draw.attempt, shown) >= draw.noise) return fixed;
    return hash01(seed, domain, task.id, 'noise-threshold', draw.attempt, shown);
  }

  answers(domain: string): unknown[] {
    return [...(this.byDomain.get(domain)?.values() ?? [])]
      .filter((e) => e.task.canary !== true)
      .map((e) => e.task.answer);
  }

  /** The task a user text is about: by a JSON value equal to a registered input, else by string leaf. */
  find(userText: string, domainHint?: string): { domain: string; task: SimTask } | undefined {
    const prefer = (entries: Entry[]) => entries.find((e) => e.domain === domainHint) ?? entries[0];
    for (const value of jsonValuesIn(userText)) {
      const hit = prefer(this.byInput.get(canonicalJson(value)) ?? []);
      if (hit) return hit;
    }
    let best: Entry | undefined;
    for (const domainTasks of this.byDomain.values()) {
      for (const entry of domainTasks.values()) {
        if (entry.leaf.length < MIN_LEAF || !leafAppears(userText, entry.leaf)) continue;
        const better =
          !best ||
          entry.leaf.length > best.leaf.length ||
          (entry.leaf.length === best.leaf.length &&
            entry.domain === domainHint &&
            best.domain !== domainHint);
        if (better) best = entry;
      }
    }
    return best;
  }

  private unindex(entry: Entry): void {
    const key = canonicalJson(entry.task.input);
    const rest = (this.byInput.get(key) ?? []).filter((e) => e !== entry);
    if (rest.length > 0) this.byInput.set(key, rest);
    else this.byInput.delete(key);
  }
}

function leafAppears(text: string, leaf: string): boolean {
  return text.includes(leaf) || text.includes(JSON.stringify(leaf).slice(1, -1));
}

/**
 * The sim's reply to a TaskAgent request. A workspace task (its gold answer is files) is worked on with
 * tool calls, one per reply (workspace-role.ts); any other task gets a JSON answer (`taskReply`). On a
 * workspace task the reference files are written iff hash01(seed, domain, task) < P(correct), as for
 * JSON answers, with P(correct) read from the system prompt and the task message only.
 */
export function taskTurn(
  req: ChatRequest,
  seed: KeyPart,
  book: TaskBook,
  draw: AttemptDraw = FIRST_ATTEMPT,
  landscape: SimLandscape = 'default',
): SimTurn {
  const first = req.messages.find((m) => m.role === 'user')?.content ?? '';
  const found = book.find(first, /^Domain:\s*(\S+)/m.exec(first)?.[1]);
  if (found === undefined || !isWorkspaceAnswer(found.task.answer)) {
    return { content: taskReply(req, seed, book, draw, landscape) };
  }
  const { domain, task } = found;
  const shown = `${textOf(req.messages, ['system'])}\n${first}`;
  return workspaceTurn(req, {
    seed,
    domain,
    taskId: task.id,
    gold: found.task.answer,
    ...(task.workspace ? { workspace: task.workspace } : {}),
    correct:
      book.attemptThreshold(seed, domain, task, draw, withoutFolders(shown)) <
      pCorrect(shown, domain, splitKind(task.split), landscape),
  });
}

/**
 * The prompt with its absolute paths left out: a workspace task's folder is a fresh random path on every
 * attempt and on every machine, so the attempt's draw must not depend on it (the same seed and prompt draw the
 * same on a queue worker as on one machine, and on a second run as on the first).
 */
const withoutFolders = (prompt: string): string => prompt.replace(/(?<![\w.~-])\/[\w./-]+/g, '/…');

/**
 * The sim's answer to a task request. Correct iff hash01(seed, domain, task) < P(correct), so adding a
 * helpful phrase never turns a correct task wrong; parse failures are fixed per task the same way. Under
 * noise the threshold is redrawn per attempt (see `attemptThreshold`).
 */
export function taskReply(
  req: ChatRequest,
  seed: KeyPart,
  book: TaskBook,
  draw: AttemptDraw = FIRST_ATTEMPT,
  landscape: SimLandscape = 'default',
): string {
  const userText = textOf(req.messages, ['user']);
  const allText = textOf(req.messages, ['system', 'user']);
  const hint = /^Domain:\s*(\S+)/m.exec(userText)?.[1];
  const found = book.find(userText, hint);
  if (!found) {
    return 'I could not find a task I recognise in this request, so I have no answer to give. (simulated model)';
  }
  const { domain, task } = found;
  const correct =
    task.canary !== true &&
    book.attemptThreshold(seed, domain, task, draw, allText) <
      pCorrect(allText, domain, splitKind(task.split), landscape);
  const answer = correct
    ? task.answer
    : wrongAnswer(task.answer, book.answers(domain), [seed, domain, task.id]);
  const lines = [`Working through the ${domain} task from the given input.`];
  if (hasPhrase(normalizeText(allText), STEP_BY_STEP)) {
    lines.push(
      'Step 1: identify the quantities the question gives.',
      'Step 2: combine them to reach the result.',
    );
  }
  // On the flat landscape the prompt's answer-format line does not matter either.
  const failureRate = isFlat(landscape) ? PARSE_FAILURE_RATE.withFormat : parseFailureRate(allText);
  if (hash01(seed, domain, task.id, 'format') < failureRate) {
    lines.push(`The answer is probably ${typeof answer === 'string' ? answer : JSON.stringify(answer)}.`);
  } else {
    lines.push(`<json>${JSON.stringify({ response: answer })}</json>`);
  }
  return lines.join('\n');
}

/** A plausible wrong answer: a nearby number, another answer of the domain, or 'unknown'. */
export function wrongAnswer(gold: unknown, domainAnswers: readonly unknown[], key: KeyPart[]): unknown {
  if (typeof gold === 'number' && Number.isFinite(gold)) {
    const size = 1 + (hashKey(...key, 'offset') % 5);
    const sign = hash01(...key, 'sign') < 0.5 ? -1 : 1;
    if (Number.isInteger(gold)) return gold + sign * size;
    const decimals = Math.min(6, (String(gold).split('.')[1] ?? '').length);
    return Number((gold + sign * size * 10 ** -decimals).toFixed(decimals));
  }
  if (typeof gold === 'boolean') return !gold;
  const goldKey = canonicalJson(gold);
  const others = [...new Map(domainAnswers.map((a) => [canonicalJson(a), a])).entries()]
    .filter(([k]) => k !== goldKey)
    .map(([, a]) => a);
  const other = pick(others, hash01(...key, 'other'));
  if (other !== undefined) return other;
  return gold === 'unknown' ? 'none' : 'unknown';
}
