import path from 'node:path';
import type { VariantView } from '../../archive/index.ts';
import { archiveFile, BUNDLE, type Manifest, openArchive } from '../../archive/index.ts';
import {
  HARNESS_VERSION,
  isSimulatedModel,
  type RunConfig,
  RunConfigSchema,
  storedConfig,
} from '../../harness/run/index.ts';

/** How a bundled run can be run again here, or why it cannot. */
export type Rerun =
  | {
      kind: 'rerun';
      how: string;
      config: RunConfig;
      upTo: number;
      unfinished: number[];
      /** The domains whose data files the re-run reads from the bundle's copy. */
      packed: string[];
      /** The `exercism:` domains, whose exercises the re-run reads from their folder here (outside the bundle). */
      exercises: { name: string; dir: string }[];
    }
  | { kind: 'cannot'; why: string };

/**
 * The largest g such that variants 1..g are all finished: a run bundled while it went (or stopped early)
 * is re-run up to there, and compared up to there. Pure.
 */
export function finishedPrefix(variants: readonly Pick<VariantView, 'id' | 'outcome'>[]): number {
  let g = 0;
  while (variants.some((v) => v.id === g + 1 && v.outcome !== 'in_progress')) g++;
  return g;
}

/**
 * The run's domains with each `dataset:`/`lmeval:` reference pointed at the bundle's copy of its data files
 * (unpacked in `bundleDir`), when the bundle holds one; the names of those domains. Pure.
 */
export function packedDomains(
  domains: RunConfig['domains'],
  manifest: Manifest,
  bundleDir: string,
): { domains: RunConfig['domains']; packed: string[] } {
  const copies = new Map((manifest.data ?? []).map((d) => [d.domain, path.join(bundleDir, d.path)]));
  const packed: string[] = [];
  const pointed = domains.map((ref) => {
    const copy = copies.get(ref.name);
    if (copy === undefined || (ref.kind !== 'dataset' && ref.kind !== 'lmeval')) return ref;
    packed.push(ref.name);
    return { ...ref, file: copy };
  });
  return { domains: pointed, packed };
}

/** A git object id (SHA-1 or SHA-256): anything else is not passed to git. */
const COMMIT = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Why the bundle's domains cannot be re-run from the bundle and this project alone, or null: a `module:`
 * domain is code from elsewhere, and a `dataset:`/`lmeval:` domain bundled without its data (--no-data)
 * would be read from a path the bundle names, outside it. A prompt template given as a file is such a path
 * too. Pure.
 */
export function domainsOutside(config: RunConfig, packed: readonly string[]): string | null {
  for (const ref of config.domains) {
    if (ref.kind === 'module')
      return `domain ${ref.name} is the module ${ref.file}, code from outside the bundle, which verify never runs`;
    if ((ref.kind === 'dataset' || ref.kind === 'lmeval') && !packed.includes(ref.name))
      return (
        `the bundle holds no copy of the data of domain ${ref.name} (it was bundled with --no-data), and verify ` +
        `reads no file outside the bundle (the run read ${ref.file})`
      );
  }
  const templates = [
    config.dataset.promptTemplate,
    ...config.domains.map((ref) => (ref.kind === 'dataset' ? ref.options?.['prompt-template'] : undefined)),
  ];
  const file = templates.find((t) => t !== undefined && !t.includes('{'));
  if (file !== undefined)
    return `the run's prompt template is the file ${file}, outside the bundle, and verify reads no such file`;
  return null;
}

/**
 * The configuration that repeats a bundled run from the bundle alone (unpacked in `bundleDir`), treating
 * what the bundle says as data: the same configuration and seed, the sim answering again or the recording
 * answering every call (never a model that would spend this machine's keys), nothing recorded, no alerts,
 * the sandbox always, variant 0 taken from the bundle's variant repository (not this project's agents/
 * folder, which may have changed since), and data files from the bundle's copy only. Pure.
 */
export function rerunOf(
  config: RunConfig,
  manifest: Manifest,
  bundleDir: string,
  variants: readonly VariantView[],
): Rerun {
  const zero = variants.find((v) => v.id === 0)?.commit ?? null;
  if (zero === null)
    return { kind: 'cannot', why: 'the run has no variant 0 yet, so there is nothing to compare' };
  if (!COMMIT.test(zero))
    return { kind: 'cannot', why: `variant 0's commit in the archive, "${zero}", is not a git commit id` };
  const recording = manifest.recording === null ? null : path.join(bundleDir, BUNDLE.recording);
  const simulated = [config.metaModel, config.taskModel].every(isSimulatedModel);
  if (recording === null && (config.replay !== null || !simulated)) {
    const models = [...new Set([config.metaModel, config.taskModel])].join(' and ');
    return {
      kind: 'cannot',
      why:
        `the run called ${models}, and the bundle holds no recording of its calls. Re-running needs one: ` +
        'start the run with --record FILE, and bundle it while that file is still there',
    };
  }
  const upTo = finishedPrefix(variants);
  const { domains, packed } = packedDomains(config.domains, manifest, bundleDir);
  const outside = domainsOutside(config, packed);
  if (outside !== null) return { kind: 'cannot', why: outside };
  const base: RunConfig = {
    ...config,
    domains,
    generations: upTo,
    record: null,
    replay: null,
    // Alerts are the run's author's: a re-run sends none, and never runs a command a bundle names.
    notifyUrl: null,
    notifyCmd: null,
    simScript: manifest.simScript === null ? null : path.join(bundleDir, BUNDLE.simScript),
    from: { runDir: bundleDir, variantId: 0, commit: zero },
    // The bundle's agent code comes from elsewhere: always in the sandbox, even if the run was not (where the
    // code runs does not change what the sim or a recording answers).
    sandbox: 'bwrap',
  };
  // The recording answers when there is one; a simulated run whose sim settings a replay would ignore (a
  // fault rate, a script) is refused one by the configuration's rules, and runs the sim again instead.
  const replayed =
    recording === null ? null : RunConfigSchema.safeParse(storedConfig({ ...base, replay: recording }));
  const useReplay = replayed?.success === true;
  if (!useReplay && !simulated)
    return {
      kind: 'cannot',
      why: `the bundle's recording cannot answer this run's calls, and verify calls no real model (${config.taskModel})`,
    };
  return {
    kind: 'rerun',
    how: useReplay ? 'every model call answered from its recording' : 'the simulated model, same seed',
    upTo,
    unfinished: variants.filter((v) => v.id > upTo).map((v) => v.id),
    packed,
    exercises: domains.flatMap((ref) => (ref.kind === 'exercism' ? [{ name: ref.name, dir: ref.dir }] : [])),
    config: useReplay ? { ...base, replay: recording } : base,
  };
}

/**
 * A run folder holding only the run's configuration, as a run stopped before its first variant leaves it:
 * `generate-loop --resume` on it runs the whole run.
 */
export function seedRunFolder(runDir: string, id: string, config: RunConfig): void {
  const archive = openArchive(archiveFile(runDir));
  try {
    archive.createRun({
      id,
      harnessVersion: HARNESS_VERSION,
      seed: config.seed,
      metaModel: config.metaModel,
      taskModel: config.taskModel,
      simulated: [config.metaModel, config.taskModel].every(isSimulatedModel),
      domains: config.domains.map((d) => d.name),
      config: storedConfig(config),
    });
  } finally {
    archive.close();
  }
}
