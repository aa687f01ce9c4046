import { type ResolvedSandbox, type SandboxPolicy, wrapCommand } from './sandbox.ts';

/** The tsx loader from the project's own node_modules: agent code runs as TypeScript, no build step. */
export const TSX_LOADER = import.meta.resolve('tsx');

export interface GatewayAccess {
  url: string;
  token: string;
}

/** The whole environment an agent gets: no provider keys, no user HOME. */
export function agentEnv(gateway: GatewayAccess, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    HYPERAGENTS_LLM_URL: gateway.url,
    HYPERAGENTS_LLM_TOKEN: gateway.token,
    ...extra,
  };
  return env;
}

/**
 * Command line that runs an agent entry point (relative to `policy.workdir`) with node + tsx; a built
 * `.mjs` entry (see agent-build.ts) runs on node alone, with nothing to compile at start.
 */
export function agentCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  entry: string,
  args: string[],
  env: Record<string, string>,
): { file: string; args: string[]; env: Record<string, string>; cwd: string } {
  const wrapped = wrapCommand(
    sandbox,
    policy,
    process.execPath,
    [...(entry.endsWith('.mjs') ? [] : ['--import', TSX_LOADER]), entry, ...args],
    env,
  );
  return { ...wrapped, cwd: policy.workdir };
}
