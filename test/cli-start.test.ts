import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
// @ts-expect-error: the build script is JavaScript, run by node before anything can compile TypeScript.
import { buildCommands } from '../scripts/build-commands.mjs';
import { PROJECT_ROOT, runNode } from './run-cli.ts';

/** The packages only some commands need, each heavy to load. */
const HEAVY = ['openai', '@anthropic-ai/sdk', '@google/genai', 'bullmq', 'ioredis'];

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-cli-start-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Metafile {
  outputs: Record<
    string,
    {
      entryPoint?: string;
      imports: { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, unknown>;
    }
  >;
}

/** The module each command checked here loads when it runs (cli/commands.ts). */
const COMMAND_SOURCES: Record<string, string> = {
  domains: 'cli/domains/domains.ts',
  archive: 'cli/archive/archive.ts',
  models: 'cli/models/models.ts',
  'generate-loop': 'cli/loop/generate-loop.ts',
  queue: 'cli/queue/queue.ts',
  worker: 'cli/queue/worker.ts',
  // What `generate-loop` loads past its help, to run: the control for the check below.
  'a run': 'cli/loop/generate-loop-run.ts',
};

/**
 * The packages a command loads as it starts: everything the `hyperagents` entry and the command's own
 * chunk import (not the chunks they load later by `import()`), by the build's record of its outputs.
 */
function packagesAtStart(meta: Metafile, command: string): Set<string> {
  const outputs = Object.keys(meta.outputs);
  const entry = outputs.find((o) => meta.outputs[o]!.entryPoint === 'cli/hyperagents.ts')!;
  const source = COMMAND_SOURCES[command];
  const chunk = outputs.find((o) => meta.outputs[o]!.entryPoint === source);
  expect(chunk, `a chunk built from ${source}`).toBeDefined();
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imported of meta.outputs[output]!.imports) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(imported.path);
      else walk(imported.path);
    }
  };
  walk(entry);
  walk(chunk!);
  return packages;
}

describe('the built commands', () => {
  let meta: Metafile;
  beforeAll(async () => {
    const folder: string = await buildCommands();
    meta = JSON.parse(readFileSync(path.join(folder, 'meta.json'), 'utf8')) as Metafile;
  });

  it.each(['domains', 'archive', 'models', 'generate-loop', 'queue', 'worker'])(
    'hyperagents %s loads no provider SDK and no queue client',
    (command) => {
      const loaded = packagesAtStart(meta, command);
      expect(HEAVY.filter((name) => loaded.has(name))).toEqual([]);
    },
  );

  it('while a run loads the process runner and the bundler (the check sees what a command loads)', () => {
    expect([...packagesAtStart(meta, 'a run')]).toEqual(expect.arrayContaining(['execa', 'esbuild']));
  });

  it.each(Object.keys(COMMAND_SOURCES))(
    'hyperagents %s loads no face: each import of one is pointed at the files it takes from',
    (command) => {
      // A face in a command's chunks would bring every module any command takes through it.
      const outputs = Object.keys(meta.outputs);
      const start = outputs.find((o) => meta.outputs[o]!.entryPoint === COMMAND_SOURCES[command])!;
      const seen = new Set<string>();
      const walk = (output: string): void => {
        if (seen.has(output)) return;
        seen.add(output);
        for (const imported of meta.outputs[output]!.imports)
          if (imported.kind === 'import-statement' && !imported.external) walk(imported.path);
      };
      walk(start);
      const faces = [...seen]
        .flatMap((output) => Object.keys(meta.outputs[output]!.inputs))
        .filter((input) => /^(agents|archive|llm|domains|queue|harness\/[a-z]+)\/index\.ts$/.test(input));
      expect(faces).toEqual([]);
    },
  );
});

/**
 * Runs the bin with a module hook that writes down every module the process loads by `import` (the
 * packages and files it loads as ES modules).
 */
async function importedBy(args: string[]): Promise<{ code: number | null; stdout: string; urls: string[] }> {
  const log = path.join(tmp, `imports-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const hooks = path.join(tmp, 'hooks.mjs');
  writeFileSync(
    hooks,
    "import { appendFileSync } from 'node:fs';\n" +
      'let log;\n' +
      'export function initialize(data) { log = data.log; }\n' +
      'export async function load(url, context, next) {\n' +
      "  appendFileSync(log, url + '\\n');\n" +
      '  return next(url, context);\n' +
      '}\n',
  );
  const probe = path.join(tmp, 'probe.mjs');
  writeFileSync(
    probe,
    "import { register } from 'node:module';\n" +
      `register(${JSON.stringify(new URL(`file://${hooks}`).href)}, { data: { log: process.env.IMPORT_LOG } });\n`,
  );
  const result = await runNode(
    '--import',
    [probe, path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), ...args],
    { ...process.env, IMPORT_LOG: log },
    tmp,
  );
  return { ...result, urls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const packageOf = (url: string): string | null => {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return match === null ? null : match[1]!;
};

describe('starting a command', () => {
  const runs = path.join(tmp, 'runs');
  beforeAll(() => {
    writeSyntheticRun(runs, { id: 'small', variants: 3 });
  });

  it.each([[['--help']], [['domains']], [['archive', 'list', '--runs', '<runs>']]])(
    'hyperagents %j runs the build and loads no provider SDK, no queue client and no tsx',
    async (args) => {
      const { code, stdout, urls } = await importedBy(args.map((a) => (a === '<runs>' ? runs : a)));
      expect(code).toBe(0);
      expect(stdout.length).toBeGreaterThan(0);
      const packages = new Set(urls.map(packageOf));
      expect([...HEAVY, 'tsx'].filter((name) => packages.has(name))).toEqual([]);
      expect(urls.some((url) => url.includes('/dist/'))).toBe(true);
      expect(urls.filter((url) => url.endsWith('.ts'))).toEqual([]);
    },
  );

  it('while hyperagents queue status loads the Redis client once it has a Redis to ask (the hook sees what a command loads)', async () => {
    // Nothing listens on port 1: the command loads the client, asks, and says the Redis does not answer.
    const { urls } = await importedBy(['queue', 'status', '--queue', 'redis://127.0.0.1:1']);
    expect(urls.map(packageOf)).toContain('ioredis');
  });
});

/** A copy of the project as a clone holds it (tracked and new files; no build), with this node_modules. */
function projectCopy(): string {
  const copy = path.join(tmp, 'project');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(PROJECT_ROOT, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
  }
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

describe('a source changed since the build', () => {
  it('is what the next start runs: the bin builds again first', async () => {
    const copy = projectCopy();
    const hyperagents = (...args: string[]) =>
      runNode(path.join(copy, 'bin', 'hyperagents.mjs'), args, { ...process.env }, tmp);
    const edit = (file: string, from: string, to: string) => {
      const source = readFileSync(path.join(copy, file), 'utf8');
      expect(source).toContain(from);
      writeFileSync(path.join(copy, file), source.replace(from, to));
    };

    // No build yet: the first start makes one.
    const first = await hyperagents('--help');
    expect(first.stdout).toContain('list the benchmark domains');
    expect(existsSync(path.join(copy, 'dist', 'current.json'))).toBe(true);

    edit('cli/commands.ts', 'list the benchmark domains', 'list every benchmark domain');
    expect((await hyperagents('--help')).stdout).toContain('list every benchmark domain');

    // A domain, loaded as a chunk of its own only when the listing asks for it.
    edit('domains/text/index.ts', 'Rule-based string transformations', 'Rule-based word transformations');
    expect((await hyperagents('domains')).stdout).toMatch(/^text\s+Rule-based word transformations/m);

    // A new domain folder is a new chunk.
    cpSync(path.join(copy, 'domains', 'text'), path.join(copy, 'domains', 'words'), { recursive: true });
    edit('domains/words/index.ts', "name: 'text'", "name: 'words'");
    const listed = await hyperagents('domains', '--json');
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((d) => d.name)).toContain('words');

    // A source that does not compile: the command runs from the sources, and says what is wrong with them.
    edit('cli/commands.ts', 'list every benchmark domain', "list every benchmark domain' +");
    const broken = await hyperagents('--help');
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('commands.ts');
  }, 120_000);
});
