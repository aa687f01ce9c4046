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
    [
      'name with arguments as a JSON string',
      '<json>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}</json>',
      [ls],
      false,
    ],
    ['name with parameters', '{"name": "bash", "parameters": {"command": "ls"}}', [ls], false],
    ['tool with input', '<json>{"tool": "bash", "input": {"command": "ls"}}</json>', [ls], false],
    ['input next to tool_name', '<json>{"tool_name": "bash", "command": "ls"}</json>', [ls], false],
    [
      'a null input',
      '<json>{"tool_name": "bash", "tool_input": null}</json>',
      [{ name: 'bash', input: {} }],
      false,
    ],
    [
      'an echoed tool result is not a call',
      '<json>{"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_output": "a.txt"}</json>',
      [],
      false,
    ],
    [
      'a tool schema with a name is not a call',
      '{"name": "bash", "description": "Run", "parameters": {"type": "object"}}',
      [],
      false,
    ],
    [
      'tag calls win over a fenced example',
      '```json\n{"tool_name": "rm", "tool_input": {}}\n```\n<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    [
      'a tag block that is an answer also silences bare calls',
      'I ran {"tool_name": "rm", "tool_input": {}} before. <json>{"response": 1}</json>',
      [],
      false,
    ],
    [
      'without tags, fenced and bare calls in order of appearance',
      '{"tool_name": "a"} then ```json\n{"tool_name": "b"}\n```',
      [
        { name: 'a', input: {} },
        { name: 'b', input: {} },
      ],
      false,
    ],
    [
      'leading reasoning is not read',
      '<think>draft: <json>{"tool_name": "rm", "tool_input": {}}</json></think>\n<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    [
      'a <think> inside a string is just text',
      '<json>{"tool_name": "bash", "tool_input": {"command": "echo <think>"}}</json>',
      [{ name: 'bash', input: { command: 'echo <think>' } }],
      false,
    ],
    [
      'a complete call then a cut-off one',
      '<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json> <json>{"tool_name": "ed',
      [ls],
      true,
    ],
    [
      'a call whose closing tag never came',
      '<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}',
      [],
      true,
    ],
    [
      'a call whose closing tag was forgotten before more prose',
      '<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}\nWaiting for the output.',
      [ls],
      false,
    ],
    ['a cut-off fenced call', '```json\n{"tool_name": "bash", "tool_input": {"command": "l', [], true],
    ['a cut-off name/arguments call', '{"name": "bash", "arguments": {"command": "l', [], true],
    ['a cut-off object that is not a call', 'The result {"total": 12, "items": [1, 2', [], false],
    [
      'an unmatched brace in prose is not a cut-off call',
      'A lone `{` opens a block. <json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>',
      [ls],
      false,
    ],
    ['a <json> mentioned in prose', 'I will use the <json> format next time.', [], false],
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
