import { readFileSync } from 'node:fs';
import { buildTaskMessages, renderTemplate } from '../agents/index.ts';
import { type ParentSelection, selectParent } from '../harness/generation/index.ts';
import type { SimTask } from '../llm/index.ts';
import {
  createSimModel,
  META_PROMPT_PATH,
  type SimModel,
  TASK_MAIN_PATH,
  TASK_PROMPT_PATH,
} from '../llm/index.ts';
import { metaSession, workspace } from '../llm/sim/testing/meta-session.ts';
import { createRng } from '../system/rng.ts';

/**
 * The generation loop in memory, at the sim's boundary: the real sim model, the real initial prompts,
 * real parent selection, an in-memory workspace for the MetaAgent's edits. It runs a whole experiment
 * in seconds, so tests can ask what the landscape rewards. `inheritMeta: false` is a deliberately broken
 * harness that drops each child's MetaAgent changes (its children are edited by the initial MetaAgent
 * prompt), and `freezeMeta` is the ablation that always uses the initial MetaAgent.
 */

export interface WalkOptions {
  seed: number;
  generations: number;
  domain: { name: string; train: SimTask[]; val: SimTask[]; test?: SimTask[]; formatHint?: string };
  parentSelection?: ParentSelection;
  freezeMeta?: boolean;
  inheritMeta?: boolean;
  /** The sim's noise (`--sim-noise`): each variant's val score is then one noisy attempt. */
  noise?: number;
}

interface Variant {
  id: number;
  parent: number | null;
  taskPrompt: string;
  metaPrompt: string;
  valid: boolean;
  score: number;
  trainCorrect: number;
  trainUnparseable: number;
  children: number;
}

const ROOT = new URL('..', import.meta.url);
const read = (rel: string) => readFileSync(new URL(rel, ROOT), 'utf8');

/** Best-so-far val score per generation (index 0 = the initial agent). */
export async function walk(opts: WalkOptions): Promise<{ scores: (number | null)[]; variants: Variant[] }> {
  const sim = walkSim(opts);
  const initialMeta = read('agents/meta/prompt.md');
  const first = read('agents/task/prompt.md');
  const rootScores = await evaluate(sim, first, opts);
  const variants: Variant[] = [
    {
      id: 0,
      parent: null,
      taskPrompt: first,
      metaPrompt: initialMeta,
      valid: true,
      ...rootScores,
      children: 0,
    },
  ];
  const rng = createRng(`walk:${opts.seed}`);
  const scores: (number | null)[] = [rootScores.score];
  for (let g = 1; g <= opts.generations; g++) {
    const candidates = variants.filter((v) => v.valid);
    const parent = variants[selectParent(candidates, opts.parentSelection ?? 'score_child_prop', rng).id]!;
    parent.children++;
    const editor = opts.freezeMeta ? initialMeta : parent.metaPrompt;
    const evalsDir = `/evals/variant-${g}`;
    const files = workspace({
      [TASK_PROMPT_PATH]: parent.taskPrompt,
      [TASK_MAIN_PATH]: 'console.log("task agent");\n',
      [META_PROMPT_PATH]: parent.metaPrompt,
      [`${evalsDir}/summary.md`]: `## variant ${parent.id}\n- ${opts.domain.name}: ${parent.trainCorrect}/${opts.domain.train.length} correct, ${opts.domain.train.length - parent.trainCorrect - parent.trainUnparseable} wrong, ${parent.trainUnparseable} unparseable, 0 errors\n`,
    });
    const system = renderTemplate(editor, {
      repo: `/wt/variant-${g}`,
      evals: evalsDir,
      iterationsLeft: opts.generations - g,
    });
    await metaSession({ sim, files, system, variantId: g });
    const taskPrompt = files.files.get(TASK_PROMPT_PATH)!;
    const breaks = files.files.get(TASK_MAIN_PATH) !== 'console.log("task agent");\n';
    const metaPrompt = opts.inheritMeta === false ? initialMeta : files.files.get(META_PROMPT_PATH)!;
    const valid = !breaks && taskPrompt !== parent.taskPrompt;
    const child = valid
      ? await evaluate(sim, taskPrompt, opts)
      : { score: 0, trainCorrect: 0, trainUnparseable: 0 };
    variants.push({ id: g, parent: parent.id, taskPrompt, metaPrompt, valid, ...child, children: 0 });
    scores.push(valid ? child.score : null);
  }
  return { scores, variants };
}

function walkSim(opts: WalkOptions): SimModel {
  const sim = createSimModel({ seed: opts.seed, domains: [opts.domain.name], noise: opts.noise ?? 0 });
  sim.registerTasks(opts.domain.name, [
    ...opts.domain.train.map((t) => ({ ...t, split: 'train' })),
    ...opts.domain.val.map((t) => ({ ...t, split: 'val' })),
    ...(opts.domain.test ?? []).map((t) => ({ ...t, split: 'test' })),
  ]);
  return sim;
}

/**
 * The run's reported best, plain (the highest val score of one attempt) or confirmed (`confirmTop` K: the top
 * K by that score get `attempts` fresh attempts on val, and the highest mean over all their attempts is
 * reported), with its reported val score and its test score (one attempt, never seen by the run).
 */
export async function reportedBest(
  opts: WalkOptions,
  variants: readonly Variant[],
  confirm: { top: number; attempts: number } | null,
): Promise<{ id: number; val: number; test: number }> {
  const sim = walkSim(opts);
  const ranked = variants.filter((v) => v.valid).sort((a, b) => b.score - a.score || a.id - b.id);
  let best = { variant: ranked[0]!, val: ranked[0]!.score };
  if (confirm !== null) {
    const confirmed = [];
    for (const variant of ranked.slice(0, confirm.top)) {
      // Fresh attempts only, as the run's --confirm-top: the attempt that ranked it is left out.
      let sum = 0;
      for (let a = 1; a <= confirm.attempts; a++)
        sum += (await evaluate(sim, variant.taskPrompt, opts, a, ['val'])).score;
      confirmed.push({ variant, val: sum / confirm.attempts });
    }
    best = confirmed.reduce((x, y) => (y.val > x.val ? y : x));
  }
  const test = await evaluate(
    sim,
    best.variant.taskPrompt,
    { ...opts, domain: { ...opts.domain, val: opts.domain.test ?? [] } },
    0,
    ['val'],
  );
  return { id: best.variant.id, val: best.val, test: test.score };
}

async function evaluate(
  sim: SimModel,
  prompt: string,
  opts: WalkOptions,
  attempt = 0,
  splits: readonly ('train' | 'val')[] = ['train', 'val'],
) {
  const solved = async (tasks: SimTask[]) => {
    let correct = 0;
    let unparseable = 0;
    for (const task of tasks) {
      const { system, user } = buildTaskMessages(prompt, {
        id: task.id,
        domain: opts.domain.name,
        input: task.input,
        ...(opts.domain.formatHint ? { formatHint: opts.domain.formatHint } : {}),
      });
      const result = await sim.complete(
        {
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
        },
        { runId: 'walk', variantId: null, role: 'task', attempt },
      );
      if (!result.ok) throw new Error(result.error.message);
      const block = [...result.response.message.content.matchAll(/<json>([\s\S]*?)<\/json>/g)].at(-1)?.[1];
      if (block === undefined) unparseable++;
      const prediction =
        block === undefined ? undefined : (JSON.parse(block) as { response: unknown }).response;
      if (JSON.stringify(prediction) === JSON.stringify(task.answer)) correct++;
    }
    return { correct, unparseable };
  };
  const none = { correct: 0, unparseable: 0 };
  const train = splits.includes('train') ? await solved(opts.domain.train) : none;
  const val = await solved(opts.domain.val);
  return {
    score: val.correct / opts.domain.val.length,
    trainCorrect: train.correct,
    trainUnparseable: train.unparseable,
  };
}
