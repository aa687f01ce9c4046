import path from 'node:path';
import { openArchive } from '../archive/archive.ts';
import { BUNDLE, type Manifest } from '../archive/bundle-manifest.ts';
import type { VariantView } from '../archive/read.ts';
import { archiveFile } from '../archive/run-folder.ts';
import {
  HARNESS_VERSION,
  isSimulatedModel,
  type RunConfig,
  RunConfigSchema,
  storedConfig,
} from '../harness/run/index.ts';

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

/**
 * The configuration that repeats a bundled run from the bundle alone (unpacked in `bundleDir`): the same
 * configuration and seed, the sim answering again or the recording answering every call, nothing recorded,
 * variant 0 taken from the bundle's variant repository (not this project's agents/ folder, which may have
 * changed since), and data files from the bundle's copy when it holds them. Pure.
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
    // The bundle's agent code comes from elsewhere: sandboxed whenever bubblewrap works here, even if the run
    // was not (where the code runs does not change what the sim or a recording answers).
    sandbox: config.sandbox === 'none' ? 'auto' : config.sandbox,
  };
  // The recording answers when there is one; a simulated run whose sim settings a replay would ignore (a
  // fault rate, a script) is refused one by the configuration's rules, and runs the sim again instead.
  const replayed =
    recording === null ? null : RunConfigSchema.safeParse(storedConfig({ ...base, replay: recording }));
  const useReplay = replayed?.success === true;
  return {
    kind: 'rerun',
    how: useReplay ? 'every model call answered from its recording' : 'the simulated model, same seed',
    upTo,
    unfinished: variants.filter((v) => v.id > upTo).map((v) => v.id),
    packed,
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
