import { UsageError } from './usage-error.ts';

/** Turns an error escaping a command into its exit code: 2 with one paragraph for usage errors, else 1. */
export function reportError(error: unknown, command: string): number {
  if (error instanceof UsageError) {
    process.stderr.write(`${command}: ${error.message}\n`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${command} failed: ${message}\n`);
  if (process.env.HYPERAGENTS_DEBUG && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`);
  else process.stderr.write('Set HYPERAGENTS_DEBUG=1 for the stack trace.\n');
  return 1;
}

/** Where a command shows what its model gateway could not do that no reply shows (a recording not appended). */
export function printGatewayWarning(message: string): void {
  process.stderr.write(`gateway: ${message}\n`);
}
