import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerVariables } from '../llm/index.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Provider keys and endpoints are never inherited from the developer's shell: a test that wants one passes
 * it in `env`. (Likewise the default `cwd` is the temp folder, so a `.env` in the project is not read.)
 */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const name of providerVariables()) delete merged[name];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

/** Runs one of the project's commands as a user would, through its bin script. */
export function runCli(
  bin: 'generate-loop' | 'hyperagents',
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = tmpdir(),
): Promise<CliResult> {
  return runNode(path.join(PROJECT_ROOT, 'bin', `${bin}.mjs`), args, childEnv(env), cwd);
}

/** Runs a node script to completion with exactly `env`, collecting its output. */
export function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
