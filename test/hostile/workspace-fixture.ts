import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { GradeContext } from '../../domains/index.ts';
import { defineDomain, type Task } from '../../domains/index.ts';
import { createTaskPool, type TaskPool, type WorkspaceLimits } from '../../harness/evaluation/index.ts';
import { DEFAULT_LIMITS, type ResolvedSandbox, wrapCommand } from '../../harness/process/index.ts';

/**
 * A TaskAgent stand-in for workspace tasks: a real node process speaking the JSON-lines protocol that edits
 * the workspace named in each request (`input.act` says how), the way a hostile one would too. What it saw
 * of the request is written to `request.json` in the workspace.
 */
export const WORKSPACE_AGENT = `
const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { createInterface } = require('node:readline');
const reply = (req, output) => process.stdout.write(JSON.stringify({ id: req.id, output }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  const ws = req.workspace.path;
  const at = (rel) => path.join(ws, rel);
  const act = req.input.act;
  fs.writeFileSync(at('request.json'), JSON.stringify({ workspace: req.workspace, settings: req.settings, limits: req.limits }));
  if (act === 'hang') return;
  if (act === 'solve') fs.writeFileSync(at('solution.js'), 'module.exports = (a, b) => a + b;\\n');
  if (act === 'wrong') fs.writeFileSync(at('solution.js'), 'module.exports = (a, b) => a - b;\\n');
  if (act === 'delete') fs.rmSync(at('solution.js'));
  if (act === 'links') {
    fs.writeFileSync(at('solution.js'), 'module.exports = (a, b) => a + b;\\n');
    fs.symlinkSync('/etc/passwd', at('passwd.txt'));
    fs.symlinkSync(req.input.secret, at('secret.txt'));
    fs.symlinkSync(path.dirname(req.input.secret), at('secrets'));
    fs.mkdirSync(at('.git/hooks'), { recursive: true });
    fs.writeFileSync(at('.git/config'), '[core]\\n\\tfsmonitor = touch ' + ws + '/PWNED\\n');
    fs.writeFileSync(at('.git/hooks/post-checkout'), '#!/bin/sh\\ntouch /tmp/PWNED\\n', { mode: 0o755 });
    execFileSync('mkfifo', [at('pipe')]);
    fs.writeFileSync(at('suid.sh'), '#!/bin/sh\\nid\\n');
    fs.chmodSync(at('suid.sh'), 0o4755);
  }
  if (act === 'huge') fs.writeFileSync(at('huge.bin'), Buffer.alloc(req.input.bytes, 120));
  if (act === 'many') {
    fs.mkdirSync(at('many'));
    for (let i = 0; i < req.input.files; i++) fs.writeFileSync(at('many/' + i), '');
  }
  if (act === 'swap-root') {
    fs.renameSync(ws, ws + '-moved');
    fs.symlinkSync(path.dirname(req.input.secret), ws);
  }
  if (act === 'swap-sub') {
    // A process left behind, inside the workspace, that keeps swapping a folder for a link to the
    // secrets while the harness collects: started here, it outlives the reply.
    fs.mkdirSync(at('sub'));
    fs.writeFileSync(at('sub/ok.txt'), 'mine');
    fs.writeFileSync(at('solution.js'), 'module.exports = (a, b) => a + b;\\n');
    const loop = 'const fs=require("fs");const end=Date.now()+' + req.input.ms + ';' +
      'while(Date.now()<end){try{fs.renameSync("sub","sub-real");fs.symlinkSync(' + JSON.stringify(path.dirname(req.input.secret)) + ',"sub");' +
      'fs.unlinkSync("sub");fs.renameSync("sub-real","sub");}catch{}}';
    spawn(process.execPath, ['-e', loop], { cwd: ws, stdio: 'ignore', detached: true }).unref();
  }
  if (act === 'steal') {
    let seen;
    try { seen = fs.readFileSync(req.input.hidden, 'utf8'); } catch (e) { seen = 'refused: ' + e.code; }
    fs.writeFileSync(at('stolen.txt'), seen);
  }
  reply(req, '<json>{"response": "done"}</json>');
});
`;

/** The hidden test the grader adds to the final files: `solution.js` must add. Never in a workspace. */
export const HIDDEN_TEST = `
const fs = require('node:fs');
const path = require('node:path');
const odd = [];
const walk = (dir) => {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    const s = fs.lstatSync(p);
    if (s.isDirectory()) walk(p);
    else if (!s.isFile() || (s.mode & 0o6000) !== 0) odd.push(name);
  }
};
walk('.');
console.log(odd.length === 0 ? 'grading copy: only regular files' : 'grading copy: odd entries ' + odd.join(','));
const add = require('./solution.js');
const got = add(2, 3);
if (got !== 5) { console.log('FAIL add(2, 3) = ' + got + ', expected 5'); process.exit(1); }
console.log('PASS add(2, 3) = 5');
`;

export interface AddAnswer {
  test: string;
}

export const STARTING_FILES = {
  'solution.js': 'module.exports = (a, b) => {\n  throw new Error("not implemented");\n};\n',
  'README.md': '# add\n\nMake `solution.js` export a function that adds two numbers.\n',
};

/** A workspace task of the test domain; `input.act` tells the stand-in TaskAgent what to do. */
export function addTask(
  id: string,
  input: Record<string, unknown>,
): Task<Record<string, unknown>, AddAnswer> {
  return {
    id,
    input,
    answer: { test: HIDDEN_TEST },
    workspace: { files: STARTING_FILES, language: 'javascript', testCommand: 'node test.js' },
  };
}

/** JavaScript workspace tasks graded by node in the grading context, with the hidden test added there only. */
export function addDomain(tasks: { train: Task[]; val?: Task[] }) {
  return defineDomain<Record<string, unknown>, AddAnswer, { files: Record<string, string> }>({
    name: 'js-add',
    description: 'make solution.js add two numbers',
    splits: tasks.val === undefined ? ['train'] : ['train', 'val'],
    load: (split) =>
      (split === 'val' ? (tasks.val ?? []) : tasks.train) as Task<Record<string, unknown>, AddAnswer>[],
    answerSchema: z.object({ files: z.record(z.string(), z.string()) }),
    async score(prediction, task, ctx: GradeContext) {
      const result = await ctx.run({
        file: process.execPath,
        args: ['hidden.test.js'],
        files: { ...prediction.files, 'hidden.test.js': task.answer.test },
        timeoutMs: 20_000,
        memoryMb: 4096,
        maxOutputBytes: 64 * 1024,
      });
      const log = `${result.stdout}${result.stderr}`;
      return {
        score: result.exitCode === 0 ? 1 : 0,
        detail: result.exitCode === 0 ? '1/1 passed' : '0/1 passed',
        log,
      };
    },
  });
}

/**
 * A pool of the stand-in TaskAgent, under bubblewrap when `sandbox` is: its script readable, the workspaces
 * folder of each process writable, nothing else of `dir` visible.
 */
export function startWorkspacePool(
  dir: string,
  sandbox: ResolvedSandbox,
  limits: WorkspaceLimits,
  options: { size?: number; taskTimeoutMs?: number } = {},
): TaskPool {
  const agentDir = path.join(dir, 'agent');
  const script = path.join(agentDir, 'agent.cjs');
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(script, WORKSPACE_AGENT);
  const command = (mounted: string) => {
    const wrapped = wrapCommand(
      sandbox,
      { workdir: agentDir, writable: false, readOnly: [], readWrite: [mounted], limits: DEFAULT_LIMITS },
      process.execPath,
      [script],
      { PATH: '/usr/bin:/bin' },
    );
    return { ...wrapped, cwd: agentDir };
  };
  return createTaskPool({
    size: options.size ?? 2,
    tasksPerWorker: 1,
    command: command(agentDir),
    taskTimeoutMs: options.taskTimeoutMs ?? 30_000,
    logFile: path.join(dir, 'task-agent.log'),
    workspaces: { dir: path.join(dir, 'workspaces'), limits, command },
  });
}
