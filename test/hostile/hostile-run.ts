import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RunSummary } from '../../harness/run/index.ts';
import { PROJECT_ROOT, runNode } from '../run-cli.ts';
import { CANARY, escapeMarkers, hostileScript, type Targets } from './attacks.ts';

/** Limits of the hostile runs: small, so that every limit is reached quickly. */
export const HOSTILE_LIMITS = { processes: 64, diskMb: 16, fileSizeMb: 8, outputKb: 64 };

/** What the host saw, never what an agent said. */
export interface Detections {
  /** Attack targets that exist after the run. */
  escapes: string[];
  /** Where a key or a secret (or the redaction mark standing in for a key) showed up. */
  stolenSecrets: string[];
  /** Connections the host's listeners accepted, by kind. */
  connections: { tcp: number; unix: number; abstract: number };
  /** Agent processes still alive after the run ended. */
  leftoverProcesses: number;
  largestLogBytes: number;
  largestAnswerChars: number;
}

export interface HostileRun {
  code: number | null;
  stderr: string;
  summary: RunSummary | null;
  sandboxRecord: unknown;
  detections: Detections;
  targets: Targets;
}

/**
 * A throwaway copy of the project (node_modules as hard links: new files there stay in the copy), a home
 * folder with a credentials file, a `.env` with a key, and listeners for every kind of connection.
 */
function prepare(root: string): { targets: Targets; servers: Server[]; counts: Detections['connections'] } {
  const copy = path.join(root, 'project');
  cpSync(PROJECT_ROOT, copy, {
    recursive: true,
    filter: (src) => !['node_modules', '.git', 'runs'].includes(path.relative(PROJECT_ROOT, src)),
  });
  execFileSync('cp', ['-al', path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules')]);
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.config', 'hyperagents'), { recursive: true });
  writeFileSync(path.join(home, '.config', 'hyperagents', 'credentials'), `token = ${CANARY.homeSecret}\n`);
  const cwd = path.join(root, 'cwd');
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, '.env'), `OPENAI_API_KEY=${CANARY.dotEnvKey}\n`);
  const counts = { tcp: 0, unix: 0, abstract: 0 };
  const listen = (kind: keyof typeof counts, address: number | string): Server => {
    const server = createServer((socket) => {
      counts[kind] += 1;
      socket.destroy();
    });
    if (typeof address === 'number') server.listen(address, '127.0.0.1');
    else server.listen(address);
    return server;
  };
  const abstractName = `hyperagents-hostile-${process.pid}-${path.basename(root)}`;
  const servers = [
    listen('tcp', 0),
    listen('unix', path.join(root, 'host.sock')),
    listen('abstract', `\0${abstractName}`),
  ];
  const targets: Targets = {
    copy,
    runDir: path.join(copy, 'runs', 'hostile'),
    home,
    cwd,
    tcpPort: 0,
    unixSocket: path.join(root, 'host.sock'),
    abstractSocket: abstractName,
    fsmonitorMarker: path.join(root, 'fsmonitor-ran'),
    spraySeconds: `7777.${process.pid}`,
  };
  return { targets, servers, counts };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Agent processes (by their marks) still running; each is ended by its id once counted. */
function endLeftovers({ copy, spraySeconds }: Targets): number {
  let found = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (!cmdline.includes(`sleep ${spraySeconds} `) && !cmdline.includes(`${copy}/runs/`)) continue;
    found += 1;
    try {
      process.kill(Number(name), 'SIGKILL');
    } catch {}
  }
  return found;
}

function detect(targets: Targets, counts: Detections['connections']): Detections {
  const escapes = Object.entries(escapeMarkers(targets))
    .filter(([, file]) => existsSync(file))
    .map(([name]) => name);
  const secrets = [CANARY.envKey, CANARY.dotEnvKey, CANARY.homeSecret, '[redacted]'];
  const stolenSecrets: string[] = [];
  const logs = filesUnder(path.join(targets.runDir, 'logs'));
  const archiveFiles = filesUnder(targets.runDir).filter((f) =>
    path.basename(f).startsWith('archive.sqlite'),
  );
  for (const file of [...logs, ...archiveFiles]) {
    const text = readFileSync(file).toString('latin1');
    for (const s of secrets)
      if (text.includes(s)) stolenSecrets.push(`${path.relative(targets.runDir, file)}: ${s}`);
  }
  const gitDir = path.join(targets.runDir, 'variants.git');
  if (existsSync(gitDir)) {
    const history = execFileSync('git', ['--git-dir', gitDir, 'log', '-p', '--all'], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
    for (const s of secrets) if (history.includes(s)) stolenSecrets.push(`variants.git: ${s}`);
  }
  let largestAnswerChars = 0;
  const archive = path.join(targets.runDir, 'archive.sqlite');
  if (existsSync(archive)) {
    const db = new Database(archive, { readonly: true });
    const row = db.prepare('SELECT MAX(LENGTH(raw_output)) AS n FROM task_results').get() as {
      n: number | null;
    };
    largestAnswerChars = row.n ?? 0;
    db.close();
  }
  return {
    escapes,
    stolenSecrets,
    connections: { ...counts },
    leftoverProcesses: endLeftovers(targets),
    largestLogBytes: Math.max(0, ...logs.map((f) => statSync(f).size)),
    largestAnswerChars,
  };
}

/** Runs the hostile generations on a throwaway copy under `--sandbox <mode>` and reports what the host saw. */
export async function runHostile(mode: 'bwrap' | 'none'): Promise<HostileRun & { cleanup(): void }> {
  const root = mkdtempSync(path.join(tmpdir(), `hyperagents-hostile-${mode}-`));
  const { targets: base, servers, counts } = prepare(root);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const address = servers[0]!.address();
  const targets = { ...base, tcpPort: typeof address === 'object' && address !== null ? address.port : 0 };
  const script = path.join(root, 'script.json');
  writeFileSync(script, JSON.stringify(hostileScript(targets)));
  const args = [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '6'],
    ...['--parent-selection', 'best', '--eval-samples', '2', '--staged-samples', '2', '--eval-workers', '1'],
    ...['--task-timeout', '45', '--meta-timeout', '300', '--sandbox', mode],
    ...['--max-processes', String(HOSTILE_LIMITS.processes), '--disk-mb', String(HOSTILE_LIMITS.diskMb)],
    ...[
      '--max-file-mb',
      String(HOSTILE_LIMITS.fileSizeMb),
      '--max-output-kb',
      String(HOSTILE_LIMITS.outputKb),
    ],
    ...['--out', path.join(targets.copy, 'runs'), '--run-id', 'hostile', '--json', '--quiet'],
  ];
  // Nothing of the test's own environment: only a key for the attacks to look for.
  const result = await runNode(
    path.join(targets.copy, 'bin', 'generate-loop.mjs'),
    args,
    { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: targets.home, ANTHROPIC_API_KEY: CANARY.envKey },
    targets.cwd,
  );
  const detections = detect(targets, counts);
  for (const server of servers) server.close();
  let sandboxRecord: unknown = null;
  const archive = path.join(targets.runDir, 'archive.sqlite');
  if (existsSync(archive)) {
    const db = new Database(archive, { readonly: true });
    const row = db.prepare('SELECT sandbox FROM runs').get() as { sandbox: string | null } | undefined;
    sandboxRecord = row?.sandbox == null ? null : JSON.parse(row.sandbox);
    db.close();
  }
  return {
    code: result.code,
    stderr: result.stderr,
    summary: result.code === 0 ? (JSON.parse(result.stdout) as RunSummary) : null,
    sandboxRecord,
    detections,
    targets,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
