import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../run-cli.ts';

/** A `hyperagents worker` process, started as a user would. */
export interface RunningWorker {
  child: ChildProcess;
  /** Its name in the queue (`host-pid`), as BullMQ records it on the jobs it takes. */
  name: string;
  log(): string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts a worker and waits until it says it takes tasks. */
export function startWorker(url: string, extra: string[] = []): Promise<RunningWorker> {
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'worker', '--queue', url, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const started = /^worker (\S+): taking tasks/m.exec(log);
      if (started !== null) {
        resolve({
          child,
          name: started[1]!,
          log: () => log,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const exited = new Promise((done) => child.once('exit', done));
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before starting: ${log}`)));
  });
}

/** The workers of one test file: each test starts the ones it needs afresh; all are stopped at the end. */
export function workerSet(url: () => string) {
  const running: RunningWorker[] = [];
  return {
    /** Stops the running workers, then starts `count` new ones. */
    async restart(count: number): Promise<RunningWorker[]> {
      await this.stopAll();
      return Promise.all(Array.from({ length: count }, () => this.add()));
    },
    async add(): Promise<RunningWorker> {
      const worker = await startWorker(url());
      running.push(worker);
      return worker;
    },
    async stopAll(): Promise<void> {
      for (const worker of running.splice(0)) await worker.stop();
    },
  };
}
