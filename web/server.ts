import { createReadStream, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { compress } from 'hono/compress';
import { etag } from 'hono/etag';
import type { Redactor } from '../archive/index.ts';
import {
  archiveFile,
  Control,
  controlMessage,
  isVariantLog,
  openArchive,
  readControlSecret,
  readVariantLog,
  recordControl,
  runLockHolder,
  secretMatches,
  VARIANT_LOGS,
  variantDiff,
  variantFile,
  variantFiles,
} from '../archive/index.ts';
import { contentType, isAsset, readAsset } from './assets.ts';
import { compareRoute } from './compare-route.ts';
import {
  compareVariants,
  listRuns,
  openRunById,
  runMark,
  runPage,
  runsMark,
  runUpdate,
  serverRedactor,
  type TaskSource,
  variantPage,
  withReader,
} from './data.ts';
import { allowedHostNames, hostCheck, LOOPBACK_NAMES } from './host-check.ts';
import { renderShell } from './page.ts';
import { regressionsRoute } from './regressions-route.ts';
import { unknownRun } from './responses.ts';

export interface ServerOptions {
  runsDir: string;
  tasks?: TaskSource;
  /** How often a live page checks its run (or the list of runs) for changes, in ms. */
  pollMs?: number;
  /**
   * The secret the page's controls (pause, resume, stop-after, budget, note) must send in the
   * `X-Control-Token` header; without one the controls are off. `serve` makes one and prints it.
   */
  controlToken?: string;
  /**
   * Writes the reproducibility bundle of the run in `runDir` to `file` (`archive bundle`); throws with a
   * one-line message. Without it a run's page offers no download.
   */
  bundle?: (runDir: string, file: string) => Promise<unknown>;
  /**
   * The names the server answers to (see host-check.ts); startServer gives the names of where it listens and
   * `allowHosts`. Default: loopback only.
   */
  hostNames?: ReadonlySet<string>;
  /** Names to answer to besides those (`serve --allow-host`). */
  allowHosts?: readonly string[];
}

/** The header a control's POST carries its token in: a page on another site cannot send it unasked. */
export const CONTROL_TOKEN_HEADER = 'x-control-token';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const VARIANT_ID = /^\d{1,9}$/;

const unknownVariant = (c: Context, run: string) => c.json({ error: `run ${run} has no such variant` }, 404);
const shellOf = (pollMs: number, controls: boolean) => (c: Context) =>
  c.html(renderShell({ mode: 'serve', pollMs, controls }));

/**
 * The archive browser's routes. Reads run archives only. Every path parameter is checked before use:
 * a run must be a folder directly under `runsDir` (see runById), a variant a number, an asset a name
 * from the fixed list; anything else is a 404 that names what exists.
 */
export function createApp(options: ServerOptions): Hono {
  const app = new Hono();
  // Before anything else: a request by a name this server is not, or a change from another site, reads nothing.
  app.use(
    '*',
    hostCheck(
      options.hostNames ?? new Set(LOOPBACK_NAMES),
      'To reach it by another name, start hyperagents serve with --allow-host NAME.',
    ),
  );
  // Outermost first: the body is compressed after its ETag is taken, and a 304 has none to compress.
  app.use('*', compress());
  // A download is streamed from its file as it is read, not read whole first to hash it.
  const tagged = etag();
  app.use('*', (c, next) => (isDownload(c.req.path) ? next() : tagged(c, next)));
  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  pageRoutes(app, options.runsDir, options.pollMs ?? 1000, options.controlToken !== undefined);
  runRoutes(app, options.runsDir);
  controlRoute(app, options.runsDir, options.controlToken);
  bundleRoute(app, options.runsDir, options.bundle);
  const redact = serverRedactor();
  variantRoutes(app, options.runsDir, options.tasks, redact);
  variantCodeRoutes(app, options.runsDir, redact);
  compareRoute(app, options.runsDir);
  regressionsRoute(app, options.runsDir);
  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => c.json({ error: error.message }, 500));
  return app;
}

/**
 * The pages (one shell; the client draws each) and their assets. An asset is revalidated on each load and
 * answered 304 when the page has it already (ETag).
 */
function pageRoutes(app: Hono, runsDir: string, pollMs: number, controls: boolean): void {
  const shell = shellOf(pollMs, controls);
  app.get('/', shell);
  app.get('/compare', shell);
  // An unknown run is a page too (404), which says so and names the runs there, not raw JSON.
  const runShell = (c: Context) => {
    const opened = openRunById(runsDir, c.req.param('run') ?? '');
    if (!opened.ok) return c.html(renderShell({ mode: 'serve', pollMs, controls }), 404);
    opened.reader.close();
    return shell(c);
  };
  app.get('/runs/:run/*', runShell);
  app.get('/runs/:run', runShell);
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    if (!isAsset(name)) return c.text('no such asset', 404);
    return c.body(readAsset(name), 200, { 'Content-Type': contentType(name), 'Cache-Control': 'no-cache' });
  });
}

/**
 * The runs, and one run's page. A live page polls a mark (`/api/mark` for the list, `.../mark` for a run)
 * and, when it changed, fetches the list again or a run's update: only its new and changed variants.
 */
function runRoutes(app: Hono, runsDir: string): void {
  app.get('/api/runs', (c) => c.json(listRuns(runsDir)));
  app.get('/api/mark', (c) => c.json({ mark: runsMark(runsDir) }));
  app.get('/api/runs/:run/mark', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    return c.json({ mark: withReader(opened, runMark) });
  });
  app.get('/api/runs/:run/update', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const after = Number(c.req.query('after') ?? '-1');
    const open = new Set(
      (c.req.query('open') ?? '')
        .split(',')
        .filter((s) => VARIANT_ID.test(s))
        .map(Number),
    );
    const update = withReader(opened, (r) => runUpdate(r, Number.isInteger(after) ? after : -1, open));
    return update === null ? c.json({ error: 'the run has not started writing yet' }, 404) : c.json(update);
  });
  app.get('/api/runs/:run', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const page = withReader(opened, runPage);
    return page === null ? c.json({ error: 'the run has not started writing yet' }, 404) : c.json(page);
  });
}

/**
 * A control from the page (`POST /api/runs/RUN/control`, a JSON Control): recorded in the run's archive as
 * `hyperagents control` records it, where the process running the run reads it. Only with the token serve
 * printed, or the run's own secret (generate-loop prints it), sent in the X-Control-Token header (a form or a
 * page on another origin cannot send that header, and without CORS its answer stays unread); a request that
 * says it came from another origin is refused before it gets here (hostCheck).
 */
function controlRoute(app: Hono, runsDir: string, token: string | undefined): void {
  app.post('/api/runs/:run/control', async (c) => {
    if (token === undefined)
      return c.json({ error: 'controls are off: this server was started without a control token' }, 403);
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    opened.reader.close();
    const given = c.req.header(CONTROL_TOKEN_HEADER);
    if (!secretMatches(given, token) && !secretMatches(given, readControlSecret(opened.dir)))
      return c.json(
        {
          error:
            "controls need the control token or this run's secret: open the page at the address hyperagents " +
            'serve printed (it ends in #token=...), or the one generate-loop printed for this run (#secret=...)',
        },
        403,
      );
    const body: unknown = await c.req.json().catch(() => null);
    const parsed = Control.safeParse(body);
    if (!parsed.success)
      return c.json(
        {
          error:
            'a control is JSON: {"action": "pause" | "resume" | "stop-after"}, {"action": "budget", "value": ' +
            'USD, 0 or more}, or {"action": "note", "value": "text"}',
        },
        400,
      );
    const control = parsed.data;
    if (control.action === 'note' && control.value.trim() === '')
      return c.json({ error: 'a note needs some text' }, 400);
    if (control.action !== 'note' && runLockHolder(opened.dir) === null)
      return c.json(
        {
          error: `run ${opened.id} is not running: no process holds it, so there is nothing to ${control.action}. Continue it with generate-loop --resume.`,
        },
        409,
      );
    const archive = openArchive(archiveFile(opened.dir));
    try {
      recordControl(archive, control);
    } finally {
      archive.close();
    }
    return c.json({ ok: true, control, message: controlMessage(opened.id, control, 'Resume') });
  });
}

const BUNDLE_PATH = /^\/api\/runs\/[^/]+\/bundle$/;
const isDownload = (pathname: string): boolean => BUNDLE_PATH.test(pathname);

/**
 * A run's reproducibility bundle as a download (`GET /api/runs/RUN/bundle`): written to a temporary folder,
 * streamed as RUN.tar.gz, and gone from the disk however the download ends. The run is found as every route
 * finds it (a folder directly under the runs folder, no links). A failure is a one-line plain-text page.
 */
function bundleRoute(app: Hono, runsDir: string, bundle: ServerOptions['bundle']): void {
  app.get('/api/runs/:run/bundle', async (c) => {
    if (bundle === undefined)
      return c.text('This server does not make bundles: use hyperagents archive bundle RUN -o FILE.\n', 404);
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok)
      return c.text(`No such run here. The runs are: ${opened.known.join(', ') || 'none'}.\n`, 404);
    opened.reader.close();
    const folder = mkdtempSync(path.join(tmpdir(), 'hyperagents-download-'));
    const name = `${opened.id}.tar.gz`;
    try {
      const file = path.join(folder, name);
      await bundle(opened.dir, file);
      const fd = openSync(file, 'r');
      const bytes = fstatSync(fd).size;
      // The open file stays readable once its folder is removed: nothing is left behind, even by a download
      // that is cancelled halfway.
      rmSync(folder, { recursive: true, force: true });
      const body = Readable.toWeb(createReadStream('', { fd })) as ReadableStream<Uint8Array>;
      return c.body(body, 200, {
        'Content-Type': 'application/gzip',
        'Content-Length': String(bytes),
        'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        'Cache-Control': 'no-store',
      });
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      return c.text(`Cannot make the bundle of run ${opened.id}: ${message}\n`, 500);
    }
  });
}

/** One variant's page and its logs, the diff between two variants, and what two variants solve apart. */
function variantRoutes(app: Hono, runsDir: string, tasks: TaskSource | undefined, redact: Redactor): void {
  app.get('/api/runs/:run/variants/:id', async (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const id = c.req.param('id');
    if (!VARIANT_ID.test(id)) {
      opened.reader.close();
      return unknownVariant(c, opened.id);
    }
    try {
      const page = await variantPage(opened.reader, opened.id, opened.dir, Number(id), tasks, redact);
      return page === null ? unknownVariant(c, opened.id) : c.json(page);
    } finally {
      opened.reader.close();
    }
  });

  // A log by its name only (one of VARIANT_LOGS, never a path), read without following links, capped and
  // redacted: as JSON for the page, or with `?format=text` as plain text to open on its own.
  app.get('/api/runs/:run/variants/:id/logs/:name', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const [id, name] = [c.req.param('id'), c.req.param('name')];
    const known = withReader(opened, (r) => VARIANT_ID.test(id) && r.variant(Number(id)) !== null);
    if (!known) return unknownVariant(c, opened.id);
    if (!isVariantLog(name)) {
      return c.json({ error: `no such log: a variant's logs are ${VARIANT_LOGS.join(', ')}` }, 404);
    }
    const log = readVariantLog(opened.dir, Number(id), name, redact);
    if (log === null) return c.json({ error: `variant ${id} has no ${name}` }, 404);
    if (c.req.query('format') === 'text') {
      return c.body(log.text, 200, { 'Content-Type': 'text/plain; charset=utf-8' });
    }
    return c.json(log);
  });

  app.get('/api/runs/:run/diff/:from/:to', async (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const [from, to] = [c.req.param('from'), c.req.param('to')];
    const commits = withReader(opened, (r) =>
      [from, to].map((id) => (VARIANT_ID.test(id) ? (r.variant(Number(id))?.commit ?? null) : null)),
    );
    const [a, b] = commits;
    if (a == null || b == null) return c.json({ error: 'one of the variants has no commit' }, 404);
    const diff = await variantDiff(opened.dir, a, b);
    return diff.ok ? c.json({ patch: diff.patch }) : c.json({ error: diff.reason }, 500);
  });

  app.get('/api/runs/:run/compare/:a/:b', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    const [a, b] = [c.req.param('a'), c.req.param('b')];
    if (!VARIANT_ID.test(a) || !VARIANT_ID.test(b)) {
      opened.reader.close();
      return unknownVariant(c, opened.id);
    }
    const comparison = withReader(opened, (r) => compareVariants(r, opened.id, Number(a), Number(b)));
    return comparison === null ? unknownVariant(c, opened.id) : c.json(comparison);
  });
}

/**
 * A variant's code at its commit: its files, and one file named by its path in that list (never opened as a
 * path), size-capped, redacted like other agent text.
 */
function variantCodeRoutes(app: Hono, runsDir: string, redact: Redactor): void {
  const commitOf = (c: Context): { dir: string; commit: string } | Response => {
    const opened = openRunById(runsDir, c.req.param('run') ?? '');
    if (!opened.ok) return unknownRun(c, opened);
    const id = c.req.param('id') ?? '';
    const variant = withReader(opened, (r) => (VARIANT_ID.test(id) ? r.variant(Number(id)) : null));
    if (variant === null) return unknownVariant(c, opened.id);
    if (variant.commit === null)
      return c.json({ error: `variant ${id} has no commit: its code was never recorded` }, 404);
    return { dir: opened.dir, commit: variant.commit };
  };
  app.get('/api/runs/:run/variants/:id/files', async (c) => {
    const at = commitOf(c);
    if (at instanceof Response) return at;
    const list = await variantFiles(at.dir, at.commit);
    return list.ok
      ? c.json({ commit: at.commit, files: list.files, cut: list.cut })
      : c.json({ error: list.reason }, 500);
  });
  app.get('/api/runs/:run/variants/:id/file', async (c) => {
    const at = commitOf(c);
    if (at instanceof Response) return at;
    const file = await variantFile(at.dir, at.commit, c.req.query('path') ?? '');
    if (!file.ok) return c.json({ error: file.reason }, file.missing ? 404 : 500);
    return c.json({ ...file, text: file.text === null ? null : redact(file.text) });
  });
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves the browser on `host` (127.0.0.1 unless asked otherwise) and resolves once it listens. */
export function startServer(
  options: ServerOptions & { port?: number; host?: string },
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const app = createApp({ hostNames: allowedHostNames(host, options.allowHosts), ...options });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        resolve({
          url: `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              if ('closeAllConnections' in server) server.closeAllConnections();
              server.close(() => done());
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
