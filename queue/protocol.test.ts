import { describe, expect, it } from 'vitest';
import { taskJobId, taskQueueName } from './protocol.ts';

const job = {
  runKey: 'a'.repeat(32),
  commit: 'b'.repeat(40),
  request: { id: 'train-1', domain: 'arithmetic', input: { question: '1 + 1' } },
};

describe('taskJobId', () => {
  it('is the same for the same task, whatever else the job carries', () => {
    expect(taskJobId({ ...job })).toBe(taskJobId(job));
    expect(taskJobId(job)).toMatch(/^task-[0-9a-f]{40}$/);
  });

  it.each([
    ['another run', { ...job, runKey: 'c'.repeat(32) }],
    ['another commit', { ...job, commit: 'd'.repeat(40) }],
    ['another task', { ...job, request: { ...job.request, id: 'train-2' } }],
    ['another domain', { ...job, request: { ...job.request, domain: 'code' } }],
    ['another input', { ...job, request: { ...job.request, input: { question: '1 + 2' } } }],
  ])('differs for %s', (_, other) => {
    expect(taskJobId(other)).not.toBe(taskJobId(job));
  });
});

describe('taskQueueName', () => {
  it('holds the version and nothing BullMQ refuses', () => {
    expect(taskQueueName('0.1.0')).toBe('tasks-v0.1.0');
    expect(taskQueueName('1.0.0+build:7')).not.toContain(':');
  });
});
