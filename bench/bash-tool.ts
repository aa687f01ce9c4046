import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createBashTool } from '../agents/index.ts';

/** Runs `command` the way a tool without a persistent shell would: a new `bash -c` per call. */
function bashOnce(command: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', () => resolve(output));
  });
}

/**
 * Per-call overhead of the persistent bash tool against a new `bash -c` process per call, for a few
 * commands that do almost nothing, so the time is the overhead. The two run in alternating blocks in one
 * run, and the report gives ms per call and their ratio, because absolute times on a shared machine are
 * noisy. Returns the report lines.
 */
export async function benchBashTool(calls = 200): Promise<string[]> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'bench-bash-')));
  await mkdir(path.join(dir, 'sub'));
  const commands = ['true', 'echo hi', `cd ${dir}/sub && pwd`];
  const bash = createBashTool({ cwd: dir });
  const lines = [
    `bash tool: ${calls} calls per command, persistent shell vs a new \`bash -c\` process per call (ms per call)`,
  ];
  try {
    for (const command of commands) {
      const expected = await bashOnce(command, dir);
      const persistent = async () => {
        const output = await bash.run({ command });
        if (output !== (expected.trimEnd() || '(no output)')) throw new Error(`unexpected output: ${output}`);
      };
      const spawned = async () => {
        await bashOnce(command, dir);
      };
      for (let i = 0; i < 10; i++) {
        await persistent();
        await spawned();
      }
      let persistentMs = 0;
      let spawnedMs = 0;
      const block = 25;
      for (let done = 0; done < calls; done += block) {
        const n = Math.min(block, calls - done);
        persistentMs += await time(persistent, n);
        spawnedMs += await time(spawned, n);
      }
      const [p, s] = [persistentMs / calls, spawnedMs / calls];
      lines.push(
        `  ${command.replace(dir, '<tmp>').padEnd(20)} persistent ${p.toFixed(3).padStart(7)}` +
          `   new process ${s.toFixed(3).padStart(7)}   persistent is ${(s / p).toFixed(1)}x faster`,
      );
    }
  } finally {
    await bash.close();
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}

async function time(call: () => Promise<void>, times: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < times; i++) await call();
  return performance.now() - started;
}
