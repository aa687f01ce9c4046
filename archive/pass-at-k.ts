/**
 * pass@k over repeated attempts (`--eval-repeats N`, and the fresh attempts of `--confirm-top`): the chance
 * that at least one of k attempts at a task is correct, estimated without bias from the n attempts the
 * archive keeps (1 − C(n − c, k) / C(n, k) for c correct), and averaged over the tasks. pass@1 is the mean
 * score's correct share; pass@n says how often the TaskAgent can solve a task at all. Pure.
 */

export interface PassAtK {
  domain: string;
  split: string;
  tasks: number;
  /** Attempts per task: the fewest any task has (k goes up to it). */
  attempts: number;
  /** k → pass@k, for k = 1 and k = attempts. */
  passAt: Record<number, number>;
}

/** 1 − C(n − c, k) / C(n, k), as a running product (no large factorials). */
export function passAtKOfTask(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** pass@1 and pass@n per domain and split where tasks have two attempts or more; empty otherwise. */
export function passAtK(
  results: readonly { domain: string; split: string; taskId: string; outcome: string }[],
): PassAtK[] {
  const groups = new Map<string, Map<string, { n: number; c: number }>>();
  for (const r of results) {
    const key = `${r.domain}\u0000${r.split}`;
    const tasks = groups.get(key) ?? new Map<string, { n: number; c: number }>();
    groups.set(key, tasks);
    const t = tasks.get(r.taskId) ?? { n: 0, c: 0 };
    tasks.set(r.taskId, t);
    t.n += 1;
    if (r.outcome === 'correct') t.c += 1;
  }
  const out: PassAtK[] = [];
  for (const [key, tasks] of groups) {
    const counts = [...tasks.values()];
    const attempts = Math.min(...counts.map((t) => t.n));
    if (attempts < 2) continue;
    const [domain = '', split = ''] = key.split('\u0000');
    const mean = (k: number) => counts.reduce((s, t) => s + passAtKOfTask(t.n, t.c, k), 0) / counts.length;
    out.push({
      domain,
      split,
      tasks: counts.length,
      attempts,
      passAt: { 1: mean(1), [attempts]: mean(attempts) },
    });
  }
  return out;
}
