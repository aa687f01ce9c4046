/** A command's work: its arguments (after the command's name) in, its exit code out. */
export type Run = (argv: string[]) => Promise<number>;

/**
 * One `hyperagents` command. `load` imports the command's module only when the command runs, so starting
 * one command loads only what that command uses (not every provider SDK and the queue's client).
 */
export interface Command {
  name: string;
  /** The lines of the command in `hyperagents --help`: its forms and what each does. */
  help: readonly { usage: string; summary: string }[];
  load: () => Promise<Run>;
}

/** Every command, in the order `hyperagents --help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'generate-loop',
    help: [
      {
        usage: 'generate-loop ...',
        summary: 'evolve agent variants (same as the generate-loop command; --help for its options)',
      },
    ],
    load: async () => (await import('./loop/generate-loop.ts')).main,
  },
  {
    name: 'eval',
    help: [
      {
        usage: 'eval RUN:VARIANT --domains d [--split test]',
        summary: "evaluate one stored variant into its run's archive",
      },
    ],
    load: async () => (await import('./loop/eval.ts')).evalCommand,
  },
  {
    name: 'chat',
    help: [
      { usage: 'chat --model ID ...', summary: 'send one prompt to a model (checks keys and endpoints)' },
    ],
    load: async () => (await import('./models/chat.ts')).chat,
  },
  {
    name: 'domains',
    help: [
      { usage: 'domains [--json]', summary: 'list the benchmark domains (folders under domains/)' },
      { usage: 'domains test REF', summary: 'check a domain, a dataset:FILE or an exercism:DIR' },
    ],
    load: async () => (await import('./domains/domains.ts')).domains,
  },
  {
    name: 'models',
    help: [
      {
        usage: 'models [--json]',
        summary: 'the models you can pass to --model: limits, prices, tool support',
      },
    ],
    load: async () => (await import('./models/models.ts')).modelsCommand,
  },
  {
    name: 'archive',
    help: [
      {
        usage: 'archive list|show|diff|lineage|best|tasks|export|bundle|verify ...',
        summary: 'browse run archives (--json everywhere); bundle a run, verify a bundle',
      },
    ],
    load: async () => (await import('./archive/archive.ts')).archiveCommand,
  },
  {
    name: 'control',
    help: [
      {
        usage: 'control RUN pause|resume|stop-after|budget USD|note TEXT',
        summary: 'steer a running run: pause it, stop it after the generations under way, change its budget',
      },
    ],
    load: async () => (await import('./loop/control.ts')).controlCommand,
  },
  {
    name: 'serve',
    help: [{ usage: 'serve [--port N] [--runs DIR]', summary: 'the archive browser on http://127.0.0.1' }],
    load: async () => (await import('./serve/serve.ts')).serveCommand,
  },
  {
    name: 'report',
    help: [
      {
        usage: 'report RUN [RUN ...] -o FILE',
        summary: "the browser's pages as one self-contained HTML file",
      },
    ],
    load: async () => (await import('./serve/report.ts')).reportCommand,
  },
  {
    name: 'experiment',
    help: [
      {
        usage: 'experiment [--seeds 1-8] [--config NAME=OPTS ...] -- OPTS',
        summary: 'configurations x seeds, compared',
      },
      { usage: 'experiment report DIR', summary: "the comparison of an experiment's finished runs" },
    ],
    load: async () => (await import('./experiment/experiment.ts')).experimentCommand,
  },
  {
    name: 'worker',
    help: [
      {
        usage: 'worker --queue redis://HOST:PORT',
        summary: 'take tasks and MetaAgent runs from a coordinator (generate-loop --queue)',
      },
    ],
    load: async () => (await import('./queue/worker.ts')).workerCommand,
  },
  {
    name: 'queue',
    help: [
      {
        usage: 'queue status --queue redis://...',
        summary: 'jobs waiting, active and failed, and the workers',
      },
    ],
    load: async () => (await import('./queue/queue.ts')).queueCommand,
  },
];
