import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as api from 'hyperagents-ts';
import { describe, expect, it } from 'vitest';

describe('the library entry hyperagents-ts', () => {
  it('exports the documented API', () => {
    for (const name of [
      'extractJsons',
      'parseToolCalls',
      'createBashTool',
      'createEditorTool',
      'chatWithAgent',
      'defineDomain',
      'selectParent',
      'openArchive',
    ]) {
      expect(typeof (api as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('runs an agent with real tools outside the harness', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'library-'));
    const bash = api.createBashTool({ cwd: root });
    const editor = api.createEditorTool({ root });
    const model = api.createScriptedModel([
      {
        content: 'Creating the file.',
        toolCalls: [{ name: 'editor', input: { command: 'create', path: 'hello.txt', file_text: 'hi\n' } }],
      },
      { content: 'Checking it.', toolCalls: [{ name: 'bash', input: { command: 'cat hello.txt' } }] },
      { content: 'Done: <json>{"response": "created"}</json>' },
    ]);
    const outcome = await api.chatWithAgent({
      model,
      system: 'You are a helpful agent.',
      user: 'Create hello.txt',
      tools: [bash, editor],
      protocol: 'native',
      root,
    });
    await bash.close();
    rmSync(root, { recursive: true, force: true });
    expect(outcome.status).toBe('done');
    expect(outcome.toolCalls).toBe(2);
    expect(outcome.messages.some((m) => m.role === 'tool' && m.content.includes('hi'))).toBe(true);
    expect(api.extractJsons(outcome.finalText)).toEqual([{ response: 'created' }]);
  });
});
