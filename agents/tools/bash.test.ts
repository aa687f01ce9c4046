import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BashTool, createBashTool } from './bash.ts';

let dir: string;
let bash: BashTool;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'bash-tool-')));
  bash = createBashTool({ cwd: dir, timeoutMs: 1000, maxOutputChars: 2000 });
});

afterEach(async () => {
  await bash.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bash tool', () => {
  it('keeps the working directory and environment between calls', async () => {
    await bash.run({ command: 'mkdir sub && cd sub && export GREETING=hello' });
    expect(await bash.run({ command: 'pwd; echo $GREETING' })).toBe(`${dir}/sub\nhello`);
  });

  it('returns stdout, then stderr, then the exit code when it is not 0', async () => {
    expect(
      await bash.run({ command: 'echo out; echo err >&2; exit_with() { return $1; }; exit_with 3' }),
    ).toBe('out\nerr\n[exit code 3]');
  });

  it('keeps output without a trailing newline', async () => {
    expect(await bash.run({ command: 'printf abc' })).toBe('abc');
  });

  it('says so when there is no output', async () => {
    expect(await bash.run({ command: 'true' })).toBe('(no output)');
  });

  it('handles a heredoc on the last line', async () => {
    const output = await bash.run({ command: 'cat <<EOF > note.txt\nline one\nEOF\ncat note.txt' });
    expect(output).toBe('line one');
  });

  it('handles a heredoc as the very last thing', async () => {
    expect(await bash.run({ command: 'cat <<EOF\nlast\nEOF' })).toBe('last');
  });

  it('does not wait for a background job', async () => {
    const started = Date.now();
    await bash.run({ command: 'sleep 5 &' });
    expect(Date.now() - started).toBeLessThan(900);
    expect(await bash.run({ command: 'echo still here' })).toBe('still here');
  });

  it('does not hang on a command that reads stdin', async () => {
    expect(await bash.run({ command: 'cat; read x; echo "read: [$x]"' })).toBe('read: []');
  });

  it('kills a command that runs too long, restarts the shell and says so', async () => {
    await bash.run({ command: 'cd /' });
    const output = await bash.run({ command: 'echo started; sleep 30' });
    expect(output).toContain('started');
    expect(output).toContain('timed out after 1 s');
    expect(output).toContain('restarted');
    expect(await bash.run({ command: 'pwd' })).toBe(dir);
  });

  it('kills the whole process group on timeout', async () => {
    const output = await bash.run({ command: '(sleep 37.4321; echo late) & sleep 37.4321' });
    expect(output).toContain('timed out');
    const survivors = await bash.run({ command: 'pgrep -f "sleep 37.4321" | wc -l' });
    expect(Number(survivors)).toBe(0);
  });

  it('caps huge output, keeping head and tail', async () => {
    const output = await bash.run({ command: 'echo FIRST; seq 1 200000; echo LAST' });
    expect(output.length).toBeLessThan(3000);
    expect(output).toContain('FIRST');
    expect(output).toContain('LAST');
    expect(output).toContain('characters omitted');
  });

  it('survives `exit` by starting a new shell on the next call', async () => {
    expect(await bash.run({ command: 'echo bye; exit 4' })).toContain('the shell exited');
    expect(await bash.run({ command: 'echo back' })).toBe('back');
  });

  it('reports syntax errors as output', async () => {
    const output = await bash.run({ command: 'if then fi' });
    expect(output).toMatch(/syntax error/);
    expect(output).toMatch(/\[exit code [1-9]/);
  });
});
