import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The project root (where node_modules with tsx lives), for starting agent entry points in tests. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export type NodeRun = { code: number | null; stdout: string; stderr: string };

/** Runs `node --import tsx <script> ...args` to completion, feeding `stdin`. */
export function runNode(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
) {
  return new Promise<NodeRun>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
