import { describe, expect, it } from 'vitest';
import { formatToolResult, parseToolCalls, renderToolList } from './tool-protocol.ts';

const ls = { name: 'bash', input: { command: 'ls' } };

describe('parseToolCalls', () => {
  it.each([
    [
      'a call in prose',
      'Let me look.\n<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    ['a fenced call', '```json\n{"tool_name": "bash", "tool_input": {"command": "ls"}}\n```', [ls], false],
    ['a bare call', 'I will run {"tool_name": "bash", "tool_input": {"command": "ls"}} now', [ls], false],
    [
      'several calls in order',
      '<json>{"tool_name": "a", "tool_input": {}}</json> then <json>{"tool_name": "b", "tool_input": {"x": 1}}</json>',
      [
        { name: 'a', input: {} },
        { name: 'b', input: { x: 1 } },
      ],
      false,
    ],
    [
      'trailing comma and single quotes',
      "<json>{'tool_name': 'bash', 'tool_input': {'command': 'ls',},}</json>",
      [ls],
      false,
    ],
    [
      '</json> and braces inside the command',
      '<json>{"tool_name": "bash", "tool_input": {"command": "echo \'</json> }\'"}}</json>',
      [{ name: 'bash', input: { command: "echo '</json> }'" } }],
      false,
    ],
    [
      'nested input objects',
      '<json>{"tool_name": "t", "tool_input": {"a": {"b": [1, {"c": 2}]}}}</json>',
      [{ name: 't', input: { a: { b: [1, { c: 2 }] } } }],
      false,
    ],
    [
      'tool_input sent as a JSON string',
      '<json>{"tool_name": "bash", "tool_input": "{\\"command\\": \\"ls\\"}"}</json>',
      [ls],
      false,
    ],
    [
      'a block that is not a call is skipped',
      '<json>{"response": 1}</json> <json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    [
      'a broken block is skipped',
      '<json>{"tool_name": bash</json> <json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    [
      'a cut-off call in a tag',
      'Now: <json>{"tool_name": "editor", "tool_input": {"command": "create", "file_text": "abc',
      [],
      true,
    ],
    ['a cut-off bare call', 'Now: {"tool_name": "editor", "tool_input": {"command": "create"', [], true],
    ['a final answer only', 'Done. <json>{"response": "ok"}</json>', [], false],
    ['plain text', 'All finished.', [], false],
  ])('%s', (_name, text, calls, truncated) => {
    expect(parseToolCalls(text)).toEqual({ calls, truncated });
  });
});

describe('formatToolResult', () => {
  it('is the prefix followed by valid JSON with the raw output', () => {
    const message = formatToolResult('bash', 'a "quoted"\nline');
    expect(message.startsWith('Tool result:\n')).toBe(true);
    expect(JSON.parse(message.slice('Tool result:\n'.length))).toEqual({
      tool_name: 'bash',
      tool_output: 'a "quoted"\nline',
    });
  });
});

describe('renderToolList', () => {
  it('names each tool with its description, schema and the call format', () => {
    const text = renderToolList([
      {
        name: 'bash',
        description: 'Run a command.',
        inputSchema: { type: 'object', properties: { command: { type: 'string' } } },
      },
    ]);
    expect(text).toContain('### bash');
    expect(text).toContain('Run a command.');
    expect(text).toContain('"command"');
    expect(text).toContain('<json>{"tool_name": "<tool name>", "tool_input":');
  });
});
