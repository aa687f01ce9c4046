// The face of queue/: all that a file outside queue/ may import of it (docs/architecture.md).
export { probeRedis } from './connection.ts';
export { type Coordinator, openCoordinator } from './coordinator.ts';
export { PROJECT_VERSION } from './project-version.ts';
export {
  decodeTaskResult,
  editQueueName,
  PREFIX,
  type TaskJob,
  taskQueueName,
  VERSION_KEY,
} from './protocol.ts';
export { formatRedisTarget, parseRedisUrl, type RedisTarget } from './redis-url.ts';
export type { RedisEvent } from './redis-watch.ts';
export { taskQueueOf } from './routing.ts';
export { type JobCounts, type QueueStatus, queueStatus } from './status.ts';
export { startQueueWorker } from './worker.ts';
export { workspaceRefusal } from './workspace-tasks.ts';
