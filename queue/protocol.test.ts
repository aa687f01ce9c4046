import { describe, expect, it } from 'vitest';
import { editJobId, editQueueName, taskJobId, taskQueueName } from './protocol.ts';

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

const edit = {
  runKey: 'a'.repeat(32),
  variantId: 3,
  parentCommit: 'b'.repeat(40),
  metaCommit: 'b'.repeat(40),
};

describe('editJobId', () => {
  it('is the same for the same generation of the same run and parent', () => {
    expect(editJobId({ ...edit })).toBe(editJobId(edit));
    expect(editJobId(edit)).toMatch(/^edit-[0-9a-f]{40}$/);
  });

  it.each([
    ['another run', { ...edit, runKey: 'c'.repeat(32) }],
    ['another generation', { ...edit, variantId: 4 }],
    ['another parent', { ...edit, parentCommit: 'd'.repeat(40) }],
    ['another MetaAgent (--freeze-meta)', { ...edit, metaCommit: 'e'.repeat(40) }],
  ])('differs for %s', (_, other) => {
    expect(editJobId(other)).not.toBe(editJobId(edit));
  });

  it('lives in a queue of its own per version', () => {
    expect(editQueueName('0.1.0')).toBe('edits-v0.1.0');
    expect(editQueueName('0.1.0')).not.toBe(taskQueueName('0.1.0'));
  });
});
