import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BashTool, createBashTool } from './bash.ts';

let dir: string;
let bash: BashTool;
const extraTools: BashTool[] = [];
const run = (command: string, tool: BashTool = bash) => tool.run({ command });

/** A tool with its own limits; closed after the test. */
function bashWith(options: { timeoutMs?: number; maxOutputChars?: number }): BashTool {
  const tool = createBashTool({ cwd: dir, ...options });
  extraTools.push(tool);
  return tool;
}

/** Whether a process whose command line contains `pattern` is running. */
function running(pattern: string): boolean {
  try {
    execFileSync('pgrep', ['-f', pattern]);
    return true;
  } catch {
    return false;
  }
}

/** Processes take a moment to start (fork, then exec) and to disappear: poll, with a generous bound. */
async function eventually(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'bash-tool-')));
  bash = createBashTool({ cwd: dir, timeoutMs: 10_000, maxOutputChars: 2000 });
});

afterEach(async () => {
  await Promise.all([bash, ...extraTools.splice(0)].map((tool) => tool.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('bash tool: a persistent shell', () => {
  it('keeps the working directory, variables and functions between calls', async () => {
    await run('mkdir sub && cd sub && export GREETING=hello && LOCAL=there && hi() { echo "hi $1"; }');
    expect(await run('pwd; echo $GREETING $LOCAL; hi you')).toBe(`${dir}/sub\nhello there\nhi you`);
  });

  it('runs calls one after another when they come at once', async () => {
    const outputs = await Promise.all([run('sleep 0.2; echo first'), run('echo second')]);
    expect(outputs).toEqual(['first', 'second']);
  });
});

describe('bash tool: output', () => {
  it('returns stdout and stderr interleaved as printed, then the exit code when it is not 0', async () => {
    expect(await run('echo out; echo err >&2; echo out2; exit_with() { return $1; }; exit_with 3')).toBe(
      'out\nerr\nout2\n[exit code 3]',
    );
  });

  it('keeps output that has no trailing newline', async () => {
    expect(await run('printf abc')).toBe('abc');
    expect(await run('printf abc; printf def >&2')).toBe('abcdef');
    expect(await run('printf "no newline"; false')).toBe('no newline\n[exit code 1]');
  });

  it('says so when there is no output', async () => {
    expect(await run('true')).toBe('(no output)');
  });

  it('reports errors with line numbers of the command itself', async () => {
    expect(await run('echo a\nno_such_command_here')).toMatch(
      /^a\n.*line 2: no_such_command_here: command not found\n\[exit code 127\]$/,
    );
  });

  it('reports syntax errors as output with their exit code', async () => {
    const output = await run('if then fi');
    expect(output).toMatch(/syntax error/);
    expect(output).toMatch(/\[exit code 2\]$/);
    expect(await run('echo fine')).toBe('fine');
  });

  it('is not fooled by a command that prints an earlier call’s end marker', async () => {
    // A DEBUG trap sees every command the shell runs, the tool's own end-of-call printf included.
    await run(`trap 'echo "$BASH_COMMAND" >> debug.log' DEBUG`);
    const old = await run('trap - DEBUG; grep -o "__HYPERAGENTS_[0-9a-f]*__" debug.log | head -1');
    expect(old).toMatch(/^__HYPERAGENTS_[0-9a-f]+__$/);
    const output = await run(`printf '\\n%s 0\\n' ${old}; echo after the old marker`);
    expect(output).toBe(`\n${old} 0\nafter the old marker`);
    expect(await run('echo next')).toBe('next');
  });

  it('caps huge output, keeping the head and the tail and saying how much was left out', async () => {
    const big = bashWith({ timeoutMs: 60_000, maxOutputChars: 2000 });
    const output = await run('yes | head -c 50000000', big);
    const { head, left, all, tail } = splitAtNote(output);
    expect(all).toBe(50_000_000);
    expect(head).toMatch(/^(y\n)+y$/);
    expect(tail).toMatch(/^(y\n)+y$/);
    expect(head.length + tail.length).toBeLessThanOrEqual(2000);
    // The shown lines, their line breaks and the final newline (not shown) make up the rest.
    expect(left + head.length + 1 + tail.length + 1).toBe(all);
    expect(await run('echo still responsive', big)).toBe('still responsive');
  });

  it('cuts long output at line boundaries, with exact counts', async () => {
    const big = bashWith({ timeoutMs: 60_000, maxOutputChars: 1000 });
    const { head, left, all, tail } = splitAtNote(await run('seq 1 3000000', big));
    let total = 0;
    for (let n = 1; n <= 3_000_000; n++) total += String(n).length + 1;
    expect(all).toBe(total);
    expect(left + head.length + 1 + tail.length + 1).toBe(total);
    const headLines = head.split('\n');
    expect(headLines).toEqual(headLines.map((_, i) => String(i + 1)));
    const tailLines = tail.split('\n');
    expect(tailLines).toEqual(tailLines.map((_, i) => String(3_000_000 - tailLines.length + 1 + i)));
  });

  it('shows bytes that are not UTF-8 as \uFFFD and says the output is not text', async () => {
    const output = await run("printf 'ok\\xff\\xfe\\x00end\\n'");
    expect(output.split('\n')[0]).toBe('ok\uFFFD\uFFFD\uFFFDend');
    expect(output).toContain('not all UTF-8 text');
    expect(await run('echo plain')).toBe('plain');
  });

  it('keeps multi-byte characters whole however the output is split into chunks', async () => {
    const wide = bashWith({ maxOutputChars: 1_000_000 });
    const output = await run('yes "é✓" | head -n 60000', wide);
    expect(output).toBe(Array.from({ length: 60000 }, () => 'é✓').join('\n'));
  });
});

describe('bash tool: commands that could hang', () => {
  it('handles heredocs, with the terminator on the last line or not', async () => {
    expect(await run("cat <<'EOF' > note.txt\nline $one\nEOF\ncat note.txt")).toBe('line $one');
    expect(await run('cat <<EOF\nlast\nEOF')).toBe('last');
    expect(await run('cat <<EOF\nunterminated')).toContain('unterminated');
    expect(await run('echo next')).toBe('next');
  });

  it('does not wait for commands that read stdin', async () => {
    expect(await run('cat')).toBe('(no output)');
    expect(await run('read x; echo "read: [$x] $?"')).toBe('read: [] 1');
    expect(await run('head -n 1; wc -c')).toBe('0');
  });

  it('returns at once from background jobs, nohup and disowned ones too, in the same shell', async () => {
    // A call that waited for these would time out and say so, in a new shell without MARK.
    const quick = bashWith({ timeoutMs: 3000 });
    await run('export MARK=same-shell', quick);
    expect(await run('sleep 31.4159 &', quick)).toBe('(no output)');
    expect(await run('nohup sleep 31.4159 > /dev/null 2>&1 &', quick)).toBe('(no output)');
    expect(await run('sleep 31.4159 & disown', quick)).toBe('(no output)');
    expect(await run('echo $MARK', quick)).toBe('same-shell');
    expect(await eventually(() => running('sleep 31.4159'))).toBe(true);
  });

  it('shows what a background job prints after its call at the start of the next call', async () => {
    await run('(until [ -e go ]; do sleep 0.01; done; echo from the job; touch done) &');
    const output = await run('touch go; until [ -e done ]; do sleep 0.01; done; echo from the call');
    expect(output).toBe('from the job\nfrom the call');
  });
});

describe('bash tool: the shell ending', () => {
  it('kills a command that runs too long, restarts the shell and says so', async () => {
    const short = bashWith({ timeoutMs: 1000 });
    await run('cd / && export KEPT=yes', short);
    const output = await run('echo started; sleep 30', short);
    expect(output).toMatch(
      /^started\n\[timed out after 1 s: the command and everything it started were killed/,
    );
    expect(output).toContain(`the next call runs in a fresh shell in ${dir}`);
    expect(await run('pwd; echo "kept: [$KEPT]"', short)).toBe(`${dir}\nkept: []`);
  });

  it('kills the whole process group on timeout, background jobs included', async () => {
    const short = bashWith({ timeoutMs: 1000 });
    const output = await run('sleep 37.4321 & (sleep 37.4321; echo late) & sleep 37.4321', short);
    expect(output).toContain('timed out');
    expect(await eventually(() => !running('sleep 37.4321'))).toBe(true);
  });

  it('reports `exit 3` and starts a new shell in the root on the next call', async () => {
    await run('cd / && export KEPT=yes');
    const output = await run('echo bye; exit 3');
    expect(output).toMatch(/^bye\n\[exit code 3; the shell itself exited/);
    expect(output).toContain(`fresh shell in ${dir}`);
    expect(await run('pwd; echo "kept: [$KEPT]"')).toBe(`${dir}\nkept: []`);
  });

  it('survives `set -e` and `set -u` typed by the model', async () => {
    const output = await run('set -e; echo before; false; echo unreachable');
    expect(output).toMatch(/^before\n\[exit code 1; the shell itself exited/);
    expect(await run('echo back')).toBe('back');
    // Options set in one call end with it, so a later failure or unset variable does not end the shell.
    await run('export KEPT=yes; set -eu');
    expect(await run('false; echo "$UNSET_VARIABLE after false, kept: $KEPT"')).toBe(
      ' after false, kept: yes',
    );
  });

  it('says so when the shell is killed during a call', async () => {
    expect(await run('kill -9 $$')).toContain('the shell was killed by SIGKILL');
    expect(await run('echo back')).toBe('back');
  });

  it('says so when the shell ended between calls', async () => {
    await run('echo $$ > shell.pid; (until [ -e go ]; do sleep 0.01; done; kill -9 $$) &');
    const pid = Number(await readFile(join(dir, 'shell.pid'), 'utf8'));
    await writeFile(join(dir, 'go'), '');
    expect(await eventually(() => !isAlive(pid))).toBe(true);
    expect(await run('echo hi')).toBe(
      `[the shell had ended since the last call; this call ran in a new shell in ${dir}]\nhi`,
    );
  });

  it('close() kills the shell and everything it started', async () => {
    await run('sleep 41.2718 & nohup sleep 41.2718 > /dev/null 2>&1 & echo $$ > shell.pid');
    const pid = Number(await readFile(join(dir, 'shell.pid'), 'utf8'));
    expect(await eventually(() => running('sleep 41.2718'))).toBe(true);
    await bash.close();
    expect(isAlive(pid)).toBe(false);
    expect(await eventually(() => !running('sleep 41.2718'))).toBe(true);
  });

  it('explains a working directory that does not exist', async () => {
    const lost = createBashTool({ cwd: join(dir, 'missing') });
    extraTools.push(lost);
    expect(await run('pwd', lost)).toBe(
      `Error: could not start bash: the working directory ${dir}/missing does not exist. Create it, or give the tool an existing directory.`,
    );
  });
});

/** The parts of a capped output: the head, the numbers in the note, and the tail. */
function splitAtNote(output: string) {
  const match = output.match(/^(.*)\n\[\.\.\. (\d+) of (\d+) characters left out \.\.\.\]\n(.*)$/s);
  if (!match) throw new Error(`no note about left-out output in: ${output.slice(0, 200)}`);
  return { head: match[1]!, left: Number(match[2]), all: Number(match[3]), tail: match[4]! };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
