import { resolve } from 'node:path';
import { isInside, realPathOf } from '../core/paths.ts';
import { type BeforeToolCall, commandWriteTargets, createSafetyPolicy } from '../core/safety.ts';

/** Devices a command may always write to. */
const SAFE_TARGET = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$|^\/proc\/self\/fd\//;

/**
 * The safety policy of a workspace task: the default rules, nothing writable outside the workspace (not
 * even the temp dir), and bash write targets checked the way the editor checks paths: resolved against
 * the workspace (`../x` too) and followed through symbolic links, so a link in the workspace that points
 * out is no way out. Advice inside the agent, like every policy: the sandbox is the real boundary (a
 * command that `cd`s out first, or a program that opens files itself, is not seen here).
 */
export function workspacePolicy(): BeforeToolCall {
  return createSafetyPolicy({
    writablePaths: [],
    override: (call, ctx) => {
      if (call.name !== 'bash') return undefined;
      const command = (call.input as { command?: unknown } | undefined)?.command;
      if (typeof command !== 'string') return undefined;
      for (const target of commandWriteTargets(command)) {
        const problem = targetProblem(target, ctx.root);
        if (problem) return { allow: false, reason: problem };
      }
      return undefined;
    },
  });
}

function targetProblem(target: string, root: string): string | undefined {
  if (SAFE_TARGET.test(target)) return undefined;
  if (/^(~|\$HOME|\$\{HOME\})(\/|$)/.test(target))
    return `writing to ${target}, outside the workspace ${root}`;
  const realRoot = realPathOf(resolve(root));
  const lexical = resolve(root, target);
  if (!isInside(resolve(root), lexical) && !isInside(realRoot, lexical)) {
    return `writing to ${target}, outside the workspace ${root}; write only to files inside it`;
  }
  const real = realPathOf(lexical);
  if (!isInside(realRoot, real)) {
    return `writing to ${target}, which leads outside the workspace ${root} through a symbolic link (to ${real})`;
  }
  return undefined;
}
