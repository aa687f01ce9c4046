import { loadavg } from 'node:os';
import { benchArchiveBrowser } from './archive-browser.ts';
import { benchBashTool } from './bash-tool.ts';
import { benchCliStart } from './cli-start.ts';
import { benchEstimate } from './estimate.ts';
import { type BenchMode, benchEvalWorkers } from './eval-workers.ts';
import { benchGateway } from './gateway.ts';
import { benchGenerationsPerHour, EVAL_WORKERS } from './generations-per-hour.ts';
import { benchGrading } from './grading.ts';
import { benchHarnessOverhead } from './harness-overhead.ts';
import { benchPolyglotGrading } from './polyglot-grading.ts';
import { polyglotGradingLines } from './polyglot-report.ts';
import { benchQueueThroughput } from './queue-throughput.ts';
import { benchSandbox } from './sandbox.ts';

/**
 * `npm run bench [-- name ...]`: measurements side by side in one run, reported as ratios, because absolute
 * times on a shared machine are noisy. Names: eval-workers, bash, gateway, archive-browser,
 * generations-per-hour, harness-overhead, sandbox, grading, queue, cli-start, estimate (default: all).
 */
const MODE_LABEL: Record<BenchMode, string> = {
  steady: 'steady',
  cold: 'cold',
};

/**
 * Enough generations that four in flight spend most of the run in a steady state, as an overnight run of
 * hundreds does: the first wave starts in step and the last leaves slots idle, once per run. At 24
 * generations those two were a sixth of the `--parallel 4` run; at 48, about a tenth.
 */
const GPH_GENERATIONS = 48;

const BENCHES: Record<string, () => Promise<void>> = {
  'eval-workers': async () => {
    const latencyMs = 200;
    const taskCount = 400;
    console.log(
      `The harness's evaluation of ${taskCount} arithmetic tasks by TaskAgent worker processes, model latency ${latencyMs} ms per\n` +
        'call: each answer graded and stored (archive, result cache, ledger) as a run does. Ideal: every worker always\n' +
        'waiting on the model, i.e. workers / latency tasks per second ("workers": --eval-workers, tasks at once).\n' +
        '"steady": timed from the first task to the last result stored, on workers started before (start-up is the\n' +
        'next columns: first answer and every worker up, from the pool starting); "cold": steady counted from the\n' +
        'pool starting (start-up included).\n' +
        '"built": workers start from the file built once per variant; "source": from the TypeScript through tsx.\n' +
        '"N a process": tasks one TaskAgent process runs at once (--tasks-per-worker), so ⌈workers ÷ N⌉ processes.\n' +
        'CPU per task: this process (evaluation, gateway, and the sim standing in for the model) and the workers.',
    );
    console.log(
      `  load average at the start: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const { results, startup } = await benchEvalWorkers([1, 4, 8, 16], latencyMs, taskCount);
    const ms = Object.fromEntries(startup.map((s) => [s.entry, s.medianMs]));
    console.log(
      `  worker start-up on its own (median of 5, one at a time): built ${ms.built?.toFixed(0)} ms, ` +
        `source ${ms.source?.toFixed(0)} ms`,
    );
    for (const r of results) {
      const ideal = (r.workers * 1000) / latencyMs;
      const throughput = r.calls / r.seconds;
      console.log(
        `  ${`${r.entry} ${MODE_LABEL[r.mode]}, ${r.tasksPerWorker} a process`.padEnd(32)} --eval-workers ${String(r.workers).padEnd(2)} ${r.seconds.toFixed(2).padStart(6)} s` +
          `  ${(r.tasks / r.seconds).toFixed(1).padStart(5)} tasks/s of ${ideal.toFixed(0).padStart(2)} ideal` +
          `  ratio ${(throughput / ideal).toFixed(2)}  first answer ${r.firstAnswerSeconds.toFixed(2)} s` +
          (r.allUpSeconds === null ? '' : `, all ${r.workers} up ${r.allUpSeconds.toFixed(2)} s`) +
          `  CPU per task ${r.cpuMsPerTask.harness.toFixed(1)} ms harness` +
          (r.cpuMsPerTask.workers === null ? '' : ` + ${r.cpuMsPerTask.workers.toFixed(1)} ms workers`) +
          (r.calls === r.tasks ? '' : `  (${(r.calls / r.tasks).toFixed(2)} calls per task)`),
      );
    }
    console.log(
      `  load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  },
  estimate: async () => {
    for (const line of await benchEstimate()) console.log(line);
  },
  bash: async () => {
    for (const line of await benchBashTool()) console.log(line);
  },
  gateway: async () => {
    for (const line of await benchGateway()) console.log(line);
  },
  'archive-browser': async () => {
    for (const line of await benchArchiveBrowser()) console.log(line);
  },
  'generations-per-hour': async () => {
    const latencyMs = 500;
    console.log(
      `Simulated runs of ${GPH_GENERATIONS} generations, model latency ${latencyMs} ms per call, 6 tasks per split, ${EVAL_WORKERS} eval workers.\n` +
        'Wall time of the whole command; "generations alone": from variant 0 evaluated to the last generation ended\n' +
        "(the command's start-up and variant 0's evaluation, about the same at every --parallel, left out). Each\n" +
        '--parallel draws other parents from the same seed, so its generations may stop at the gate or before it\n' +
        'more or less often; "for the same work" weighs each generation by how long one that got as far took at\n' +
        '--parallel 1.',
    );
    for (const line of await benchGenerationsPerHour([1, 2, 4], GPH_GENERATIONS, latencyMs))
      console.log(line);
  },
  'harness-overhead': async () => {
    console.log(
      "The harness's own time per generation (no agents), by the parent's lineage depth. The MetaAgent's evals\n" +
        'folder holds the task results of the newest 10 ancestors. The parent alternates between two siblings at\n' +
        'that depth, so a kept folder swaps one variant folder for another, as much as it changes when each\n' +
        'generation\'s child is the next parent. "reused": the folder the last MetaAgent read is checked (nothing\n' +
        'in it changed) and updated, in every sandbox; "changed": the last MetaAgent wrote into its folder, so it\n' +
        'is removed and the folder written afresh; "fresh": written afresh with nothing kept.',
    );
    for (const line of await benchHarnessOverhead([1, 10, 200], 31)) console.log(line);
  },
  sandbox: async () => {
    for (const line of await benchSandbox()) console.log(line);
  },
  grading: async () => {
    console.log('Grading 16 code exercises (reference solutions), each spec a sandboxed Node process');
    const runs = await benchGrading([1, 4], 16);
    const base = runs[0]!;
    for (const r of runs) {
      console.log(
        `  ${r.graders} grader(s) at once: ${r.seconds.toFixed(1).padStart(6)} s, ` +
          `${r.perExerciseSeconds.toFixed(2)} s per exercise, ${((r.exercises / r.seconds) * 60).toFixed(1)} exercises/min, ` +
          `${(base.seconds / r.seconds).toFixed(2)}x the 1-grader speed${r.allPassed ? '' : ' (SOME FAILED)'}`,
      );
    }

    const dir = process.env.POLYGLOT_DIR;
    const perLanguage = Number(process.env.POLYGLOT_PER_LANGUAGE ?? Number.POSITIVE_INFINITY);
    console.log(
      `\nGrading the reference of each exercise in ${dir ?? 'the six-language fixtures'} (POLYGLOT_DIR=a checkout of ` +
        'the polyglot benchmark; POLYGLOT_PER_LANGUAGE=N: N of each language, spread over their names), language by language,\n' +
        'the four settings one after the other, then again in the reverse order, each in the sandbox. A process is a local\n' +
        'grading process; "no caches": Go and Rust without the grader\'s build caches (C++ keeps its Catch main), as\n' +
        'before them. A worker is a real hyperagents worker (--concurrency 1) behind a real redis-server, each exercise a\n' +
        'job that grades its reference as a run grades a kept workspace; workers always grade with the caches.',
    );
    for (const line of polyglotGradingLines(await benchPolyglotGrading(dir, perLanguage))) console.log(line);
  },
  'cli-start': async () => {
    for (const line of await benchCliStart()) console.log(line);
  },
  queue: async () => {
    const latencyMs = 200;
    const inFlight = 8;
    console.log(
      `Evaluation of 200 arithmetic tasks, ${inFlight} in flight, model latency ${latencyMs} ms per call (ideal ` +
        `${((inFlight * 1000) / latencyMs).toFixed(0)} tasks/s): local TaskAgent\n` +
        'processes against generate-loop --queue with 1 and 2 hyperagents worker processes on this same machine\n' +
        '(real redis-server; workers fetch and build the variant first); median of 3 alternating rounds.\n' +
        'One machine: this shows the overhead of the queue, not the gain of more machines.',
    );
    const runs = await benchQueueThroughput(latencyMs, 200, inFlight);
    const base = runs[0]!;
    for (const r of runs) {
      console.log(
        `  ${r.path.padEnd(9)} ${r.seconds.toFixed(2).padStart(6)} s  ${(r.tasks / r.seconds).toFixed(1).padStart(5)} tasks/s` +
          `  ${(base.seconds / r.seconds).toFixed(2)}x the local speed  one task ${r.medianTaskMs.toFixed(0)} ms (median)`,
      );
    }
  },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}.`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) {
  await BENCHES[name]!();
  console.log('');
}
