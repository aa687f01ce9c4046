import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

describe('the hyperagents command', () => {
  it('lists the domains, as text and as JSON', async () => {
    const text = await runCli('hyperagents', ['domains']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^arithmetic\s+Generated multi-step word problems/m);
    const json = await runCli('hyperagents', ['domains', '--json']);
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({ name: 'arithmetic', splits: ['train', 'val', 'test'], stagedSamples: 10 }),
    );
  });

  it('answers an unknown command with exit code 2 and the commands it knows', async () => {
    const result = await runCli('hyperagents', ['domians']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown command "domians" \(did you mean domains\?\)/);
  });

  it('passes generate-loop through, help included', async () => {
    const help = await runCli('hyperagents', ['generate-loop', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--domains');
    expect(help.stdout).toContain('--parent-selection');
    const bad = await runCli('hyperagents', ['generate-loop', '--domains', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Known domains: arithmetic/);
  });
});
