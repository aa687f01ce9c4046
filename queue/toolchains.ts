import type { Redis } from 'ioredis';
import { z } from 'zod';
import {
  LANGUAGE_NAMES,
  LANGUAGE_NEEDS,
  type LanguageName,
  type LanguageToolchain,
  type ProbeOptions,
  probeLanguage,
} from '../domains/index.ts';
import { PREFIX } from './protocol.ts';

/**
 * A worker's toolchains as it publishes them in Redis, for `hyperagents queue status`: refreshed while the
 * worker runs, gone (expired) within TTL_SECONDS of its end. Routing itself never reads them: a job of a
 * language goes to the workers listening to that language's queue.
 */

const TTL_SECONDS = 60;
export const REFRESH_MS = 20_000;

const toolchainsKey = (version: string, worker: string): string =>
  `${PREFIX}:toolchains:${version}:${worker}`;

const Language = z.enum(LANGUAGE_NAMES);
export const LanguageToolchainSchema = z.discriminatedUnion('ok', [
  z.object({ language: Language, ok: z.literal(true), versions: z.array(z.string()) }),
  z.object({ language: Language, ok: z.literal(false), problem: z.string(), install: z.string() }),
]);
const PublishedSchema = z.object({ worker: z.string(), toolchains: z.array(LanguageToolchainSchema) });

/** Writes (or refreshes) what `worker` grades. */
export async function publishToolchains(
  client: Redis,
  version: string,
  worker: string,
  toolchains: readonly LanguageToolchain[],
): Promise<void> {
  await client.set(toolchainsKey(version, worker), JSON.stringify({ worker, toolchains }), 'EX', TTL_SECONDS);
}

export async function unpublishToolchains(client: Redis, version: string, worker: string): Promise<void> {
  await client.del(toolchainsKey(version, worker));
}

/** What each worker of `version` published, by worker name; a record this version cannot read is left out. */
export async function readToolchains(
  client: Redis,
  version: string,
): Promise<Map<string, LanguageToolchain[]>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', toolchainsKey(version, '*'), 'COUNT', 200);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const out = new Map<string, LanguageToolchain[]>();
  if (keys.length === 0) return out;
  for (const text of await client.mget(...keys)) {
    if (text === null) continue;
    try {
      const parsed = PublishedSchema.safeParse(JSON.parse(text));
      if (parsed.success) out.set(parsed.data.worker, parsed.data.toolchains);
    } catch {
      // Not JSON: not this version's record.
    }
  }
  return out;
}

/**
 * After a task of `language` failed its grading here, whether the toolchain is to blame: probed again, it
 * no longer works (a compiler removed or broken while the worker ran). Then the failure is this worker's,
 * not the answer's, and is reported as an infrastructure failure (the job is tried on another worker).
 * Null when the toolchain still works (the answer failed on its own) or the language needs none.
 */
export async function toolchainFault(
  language: LanguageName,
  options: ProbeOptions = {},
): Promise<{ problem: string; install: string } | null> {
  const needs = LANGUAGE_NEEDS.find((n) => n.language === language);
  if (needs === undefined) return null;
  const probed = await probeLanguage(needs, options);
  return probed.ok ? null : { problem: probed.problem, install: probed.install };
}

/** The reason of the infrastructure failure a toolchain fault makes of a task. */
export const faultReason = (language: LanguageName, fault: { problem: string; install: string }): string =>
  `the ${language} toolchain failed on this worker while grading (${fault.problem}; ${fault.install}); ` +
  'the task is tried on another worker';
