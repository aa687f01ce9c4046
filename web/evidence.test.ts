import { describe, expect, it } from 'vitest';
import type { MetaTranscript } from '../archive/index.ts';
import { metaAccount, toolCallsInLog } from './evidence.ts';

const child = { parent: 0, failureReason: null, changedFiles: ['agents/task/prompt.md'] };
const transcript = (status: string, summary: string | null): MetaTranscript => ({
  status,
  summary,
  lastMessage: 'Halfway.',
  toolCalls: 4,
  costUsd: 0,
  messages: [],
});

describe('toolCallsInLog', () => {
  it.each([
    ['[meta-agent] assistant: Looking. [calls bash] [calls editor]\n[meta-agent] tool: ok', 2],
    ['[meta-agent] user: Improve it.\n[meta-agent] assistant: Done.', 0],
    ['', null],
    ['some other program wrote this [calls bash]', null],
  ])('%j has %j tool calls', (log, calls) => {
    expect(toolCallsInLog(log)).toBe(calls);
  });
});

describe('metaAccount', () => {
  it('is null for the initial agent', () => {
    expect(metaAccount({ ...child, parent: null }, null, null, 0)).toBeNull();
  });

  it("keeps a finished MetaAgent's own summary", () => {
    expect(metaAccount(child, transcript('done', 'Asked for care.'), null, 3)).toMatchObject({
      ended: 'finished',
      finished: true,
      summary: 'Asked for care.',
      toolCalls: 4,
      toolCallsFrom: 'transcript',
      modelCalls: 3,
      changedFiles: ['agents/task/prompt.md'],
    });
  });

  it.each([
    ['max_tool_calls', 'stopped at its tool-call limit'],
    ['max_turns', 'stopped at its turn limit'],
    ['max_wall_time', 'stopped at its time limit'],
    ['max_cost', 'stopped at its cost limit'],
    ['error', 'stopped by a model error'],
    ['weird', 'ended with status weird'],
  ])('says how one that ended %s ended, with no summary', (status, ended) => {
    expect(metaAccount(child, transcript(status, null), null, 1)).toMatchObject({
      ended,
      finished: false,
      summary: null,
      lastMessage: 'Halfway.',
    });
  });

  it('tells a timed-out one from its recorded failure and its log', () => {
    const timedOut = { ...child, failureReason: 'MetaAgent timed out after 900 s', changedFiles: [] };
    const log = '[meta-agent] assistant: Reading. [calls bash]\n[meta-agent] tool: ...\n';
    expect(metaAccount(timedOut, null, log, 2)).toMatchObject({
      ended: 'timed out after 900 s',
      toolCalls: 1,
      toolCallsFrom: 'log',
      summary: null,
    });
    expect(metaAccount({ ...timedOut, failureReason: 'smoke task failed' }, null, null, 0)).toMatchObject({
      ended: 'left no transcript, so how it ended is not known',
      toolCalls: null,
      toolCallsFrom: null,
    });
  });
});
