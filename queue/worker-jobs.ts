import { type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { gatewayKey } from './protocol.ts';
import { type Relay, reachable } from './relay.ts';

/**
 * A job's data as this worker reads it. A job it cannot read (`what`: what kind of job), or one of another
 * project version, fails for good: no worker of this queue would read it better.
 */
export function readJob<S extends z.ZodType<{ version: string }>>(
  schema: S,
  data: unknown,
  version: string,
  what: string,
): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError(`${what} this version cannot read`);
  const job = parsed.data;
  if (job.version !== version) {
    throw new UnrecoverableError(`job of version ${job.version}, worker of version ${version}`);
  }
  return job;
}

/** The coordinator's gateway as a job's agents reach it: its published address and this worker's relay to it. */
export interface JobGateway {
  url: string;
  relay: Relay;
}

/** The gateway the run's coordinator published; throws (the job is tried again later) while there is none. */
export async function jobGateway(
  client: Redis,
  relayFor: (url: string) => Promise<Relay>,
  runKey: string,
): Promise<JobGateway> {
  const url = await client.get(gatewayKey(runKey));
  if (url === null) throw new Error('the coordinator has not published its gateway');
  return { url, relay: await relayFor(url) };
}

/**
 * Throws, so that the job is tried again later, when a model call of the job was lost on its way to the
 * coordinator's gateway: the relay counted a failure since `failuresBefore`, or the agent `failed` and the
 * gateway does not answer now (the coordinator may be restarting). Such a reply is not the agent's doing.
 */
export async function throwIfLostInTransit(
  job: Job,
  gateway: JobGateway,
  failuresBefore: number,
  failed: boolean,
  note: (line: string) => void,
): Promise<void> {
  const { url, relay } = gateway;
  if (relay.failures() > failuresBefore || (failed && !(await reachable(new URL(url))))) {
    const reason = `a model call through the coordinator's gateway at ${url} failed in transit (${relay.lastFailure() ?? 'no answer'}); the job will be tried again`;
    note(`job ${job.id}: ${reason}`);
    throw new Error(reason);
  }
}
