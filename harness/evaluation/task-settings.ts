import { createHash } from 'node:crypto';

/**
 * What a task runs under, as the evaluation sees it: the run's `TaskSettings` (harness/run/run-config.ts,
 * made from the settings table), every setting that changes a task's result. The evaluation sends it whole
 * with every task, reads only the tool-call cap of it (for TaskAgents older than the settings), and keys
 * the result cache by its hash.
 */
export type TaskSettingsRecord = Readonly<
  { maxToolCalls: number } & Record<string, string | number | boolean>
>;

/**
 * The hash the result cache keys: of every field, in order of name, so that the same settings give the same
 * hash wherever they were made, and any setting that changes gives another.
 */
export function taskSettingsHash(settings: TaskSettingsRecord): string {
  const fields = Object.keys(settings)
    .sort()
    .map((key) => [key, settings[key]]);
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
