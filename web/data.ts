import path from 'node:path';
import type { TaskResultRow } from '../archive/index.ts';
import {
  type ArchiveReader,
  archiveFile,
  createRedactor,
  eventsOfKinds,
  type Flag,
  type GenerationSpend,
  listRunIds,
  listVariantLogs,
  META_AGENT_LOG,
  type MetaTranscript,
  openArchiveReader,
  type Redactor,
  type RunView,
  readMetaTranscript,
  readVariantLog,
  runById,
  runLockHolder,
  type ScoreStanding,
  scoreStanding,
  secretValues,
  type VariantLogName,
  type VariantView,
  variantFlags,
  withoutAlertDestinations,
} from '../archive/index.ts';
import { ALERT_EVENTS, type RunAlertsView, runAlertsView } from './alerts.ts';
import { type RunBatches, runBatches } from './batches.ts';
import { type MetaAccount, metaAccount } from './evidence.ts';
import { HEALTH_EVENTS, type RunHealth, runHealth } from './health.ts';
import { ESTIMATE_EVENT, type EstimateAgainstRun, estimateAgainstRun } from './run-estimate.ts';

/** A task's input and expected answer, from its domain; null when the domain cannot say. */
export type TaskSource = (
  domain: string,
  split: string,
) => Promise<ReadonlyMap<string, { input: unknown; answer: unknown }> | null>;

/**
 * Splits whose expected answers the pages show; test answers stay hidden
 * (docs/architecture.md, 'Splits and scores').
 */
const ANSWER_SPLITS = new Set(['train', 'val']);

export interface RunPage {
  run: RunView;
  /** `tampered`: how many of its tasks' answers tampered with the grader, on a variant that has any. */
  variants: (VariantView & { tampered?: number })[];
  /** Spend per generation with the running total: one point a generation, not one a model call. */
  spend: GenerationSpend[];
  /** The reported best's confirmed score and its gain over variant 0 against the noise floor; null: no best. */
  bestStanding: ScoreStanding | null;
  /** The variants whose gain over variant 0 lies within the noise floor (none without `--noise-floor`). */
  withinNoise: number[];
  health: RunHealth;
  /** The alerts it sent and how each delivery went, and where they go (`--notify`, `--notify-cmd`). */
  alerts: RunAlertsView;
  /** The estimate printed when it started against its figures so far and at its pace to the end. */
  estimate: EstimateAgainstRun;
  /** Its batches (`--batch`), the spend through them and what it saved; null when it used none. */
  batches: RunBatches | null;
  /** Whether a live process holds the run (it may still log, an alert's delivery say, after it ended). */
  held: boolean;
  /** The archive's change mark when this was read (see ArchiveReader.changeMark). */
  mark: string;
}

/**
 * What a live page fetches when the run changed: the run, the variants that are new or changed since, and
 * the spend of the generations from `spendFrom` on (and of no generation): the points before it stay as
 * the page has them, so an update stays small however long the run.
 */
export type RunUpdate = RunPage & { spendFrom: number };

/** A run in the list of runs: its view and its health. */
export type RunListEntry = RunView & { health: RunHealth };

export interface TaskRow extends TaskResultRow {
  input: unknown;
  expected: unknown;
}

export interface VariantPage {
  runId: string;
  variant: VariantView;
  parent: VariantView | null;
  /** Every variant's id and score, to pick one to diff or compare against. */
  others: { id: number; score: number | null; outcome: string }[];
  lineage: number[];
  tasks: TaskRow[];
  llmCalls: ReturnType<ArchiveReader['llmCalls']>;
  transcript: MetaTranscript | null;
  /** What its MetaAgent did (null for the initial agent). */
  metaAgent: MetaAccount | null;
  /** The logs in its folder, each served by name (see readVariantLog). */
  logs: { name: VariantLogName; bytes: number }[];
  /** Flags for reward hacking (archive/flags.ts): shown, never used to select. */
  flags: Flag[];
  /** Its confirmed score, and its gain over variant 0 against the noise floor. */
  standing: ScoreStanding;
}

/** The ids of the variants whose gain over variant 0 lies within the run's noise floor. */
function withinNoise(reader: ArchiveReader, variants: readonly VariantView[]): number[] {
  const floor = reader.noiseFloor();
  if (floor === null) return [];
  const initial = variants.find((v) => v.id === 0)?.score ?? null;
  return variants
    .filter((v) => scoreStanding(v, initial, [], floor, null).withinNoise === true)
    .map((v) => v.id);
}

/** What the run knows of `variant`'s score under noise (see scoreStanding), from `variants` (all of them). */
function standingOf(
  reader: ArchiveReader,
  variants: readonly VariantView[],
  variant: Pick<VariantView, 'id' | 'score'>,
  bestId: number | null,
): ScoreStanding {
  const initial = variants.find((v) => v.id === 0)?.score ?? null;
  return scoreStanding(variant, initial, reader.confirmedScores(), reader.noiseFloor(), bestId);
}

/**
 * What agent text the pages show is redacted with: key shapes, and the secret values of the server's own
 * environment (the run's were redacted when it wrote its logs).
 */
export const serverRedactor = (): Redactor => createRedactor(secretValues(process.env));

export type Opened =
  | { ok: true; id: string; dir: string; reader: ArchiveReader }
  | { ok: false; known: string[] };

/** Opens run `id` of `runsDir` read-only, refusing any id that would lead outside it. */
export function openRunById(runsDir: string, id: string): Opened {
  const found = runById(runsDir, id);
  if (!found.ok) return { ok: false, known: found.known };
  try {
    return {
      ok: true,
      id: found.id,
      dir: found.dir,
      reader: openArchiveReader(archiveFile(found.dir)),
    };
  } catch {
    return { ok: false, known: listRunIds(runsDir) };
  }
}

export function withReader<T>(opened: Extract<Opened, { ok: true }>, body: (reader: ArchiveReader) => T): T {
  try {
    return body(opened.reader);
  } finally {
    opened.reader.close();
  }
}

/** Every readable run under `runsDir`, by id, with its health. */
export function listRuns(runsDir: string, now = Date.now()): RunListEntry[] {
  const runs: RunListEntry[] = [];
  for (const id of listRunIds(runsDir)) {
    const opened = openRunById(runsDir, id);
    if (!opened.ok) continue;
    const page = withReader(opened, (r) => runPage(r, now));
    if (page !== null) runs.push({ ...page.run, health: page.health });
  }
  return runs;
}

/** A mark that changes whenever any run under `runsDir` changes, appears or stops being held. */
export function runsMark(runsDir: string): string {
  const marks: string[] = [];
  for (const id of listRunIds(runsDir)) {
    const opened = openRunById(runsDir, id);
    if (!opened.ok) continue;
    marks.push(`${id}:${withReader(opened, (r) => runMark(r))}`);
  }
  return marks.join(',');
}

/** The change mark of one run, with whether a live process holds it (a run that dies changes state). */
export function runMark(reader: ArchiveReader): string {
  return `${reader.changeMark()}.${runLockHolder(path.dirname(reader.file)) === null ? 'free' : 'held'}`;
}

export function runPage(reader: ArchiveReader, now = Date.now()): RunPage | null {
  const mark = runMark(reader);
  const run = reader.run();
  if (run === null) return null;
  const variants = reader.variants();
  const runDir = path.dirname(reader.file);
  const lastActivityAt = reader.lastActivityAt();
  const events = reader.eventsOf([...HEALTH_EVENTS, ...ALERT_EVENTS, ESTIMATE_EVENT]);
  const health = runHealth({
    run,
    variants,
    events: eventsOfKinds(events, HEALTH_EVENTS),
    lastActivityAt,
    runDir,
    now,
  });
  const held = runLockHolder(runDir) !== null;
  const best = run.best === null ? null : (variants.find((v) => v.id === run.best?.id) ?? null);
  const tampered = reader.tamperedTasks();
  return {
    run: { ...run, config: withoutAlertDestinations(run.config) ?? run.config },
    variants: variants.map((v) => (tampered.has(v.id) ? { ...v, tampered: tampered.get(v.id)! } : v)),
    spend: reader.spendByGeneration(),
    bestStanding: best === null ? null : standingOf(reader, variants, best, best.id),
    withinNoise: withinNoise(reader, variants),
    health,
    alerts: runAlertsView(run.config, eventsOfKinds(events, ALERT_EVENTS), held),
    estimate: estimateAgainstRun({
      run,
      variants,
      health,
      events: eventsOfKinds(events, [ESTIMATE_EVENT]),
      lastActivityAt,
      now,
    }),
    batches: runBatches(reader, now),
    held,
    mark,
  };
}

/**
 * The run page's data for a page that already has variants up to `after` and is waiting on `open` (those
 * not yet ended): only the variants that are new or were open are sent, and the spend from the first of
 * them on; the rest as in runPage.
 */
export function runUpdate(
  reader: ArchiveReader,
  after: number,
  open: ReadonlySet<number>,
  now = Date.now(),
): RunUpdate | null {
  const page = runPage(reader, now);
  if (page === null) return null;
  const spendFrom = Math.min(after + 1, ...open);
  return {
    ...page,
    variants: page.variants.filter((v) => v.id > after || open.has(v.id)),
    spend: page.spend.filter((s) => s.generation === null || s.generation >= spendFrom),
    spendFrom,
  };
}

export async function variantPage(
  reader: ArchiveReader,
  runId: string,
  runDir: string,
  id: number,
  tasks?: TaskSource,
  redact: Redactor = serverRedactor(),
): Promise<VariantPage | null> {
  const variant = reader.variant(id);
  if (variant === null) return null;
  const variants = reader.variants();
  const results = reader.taskResults(id);
  const parent = variant.parent === null ? null : (variants.find((v) => v.id === variant.parent) ?? null);
  const flags = await variantFlags(reader, runDir, variant, parent);
  const llmCalls = reader.llmCalls(id);
  const transcript = readMetaTranscript(runDir, id);
  const sources = new Map<string, ReadonlyMap<string, { input: unknown; answer: unknown }> | null>();
  if (tasks !== undefined) {
    for (const key of new Set(results.map((t) => `${t.domain}\u0000${t.split}`))) {
      const [domain, split] = key.split('\u0000') as [string, string];
      sources.set(key, await tasks(domain, split).catch(() => null));
    }
  }
  return {
    runId,
    variant,
    parent,
    others: variants.map((v) => ({ id: v.id, score: v.score, outcome: v.outcome })),
    lineage: reader.lineage(id).map((v) => v.id),
    tasks: results.map((t) => {
      const task = sources.get(`${t.domain}\u0000${t.split}`)?.get(t.taskId);
      return {
        ...t,
        input: task?.input ?? null,
        expected: task !== undefined && ANSWER_SPLITS.has(t.split) ? task.answer : null,
      };
    }),
    llmCalls,
    transcript,
    metaAgent: metaAccount(
      variant,
      transcript,
      transcript === null ? (readVariantLog(runDir, id, META_AGENT_LOG, redact)?.text ?? null) : null,
      llmCalls.filter((c) => c.role === 'meta').length,
    ),
    logs: listVariantLogs(runDir, id),
    flags,
    standing: standingOf(reader, variants, variant, reader.run()?.best?.id ?? null),
  };
}

export interface VariantComparison {
  runId: string;
  a: VariantView;
  b: VariantView;
  /** Tasks (domain, split, id) solved by one and not the other. */
  onlyA: TaskResultRow[];
  onlyB: TaskResultRow[];
  both: number;
  neither: number;
}

export function compareVariants(
  reader: ArchiveReader,
  runId: string,
  a: number,
  b: number,
): VariantComparison | null {
  const va = reader.variant(a);
  const vb = reader.variant(b);
  if (va === null || vb === null) return null;
  const key = (t: TaskResultRow) => `${t.domain}\u0000${t.split}\u0000${t.taskId}`;
  const tb = new Map(reader.taskResults(b).map((t) => [key(t), t]));
  const onlyA: TaskResultRow[] = [];
  const onlyB: TaskResultRow[] = [];
  let both = 0;
  let neither = 0;
  for (const ta of reader.taskResults(a)) {
    const other = tb.get(key(ta));
    if (other === undefined) continue;
    const okA = ta.outcome === 'correct';
    const okB = other.outcome === 'correct';
    if (okA && okB) both++;
    else if (!okA && !okB) neither++;
    else if (okA) onlyA.push(ta);
    else onlyB.push(other);
  }
  return { runId, a: va, b: vb, onlyA, onlyB, both, neither };
}
