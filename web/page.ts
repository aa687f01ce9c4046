import { readAsset, SCRIPTS, STYLES } from './assets.ts';

/** JSON that is safe inside a <script> element: nothing in it can close the element or open a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** Code that is safe inline in a <script> element: a literal `</script` cannot end it early. */
const inlineScript = (code: string): string =>
  code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

/** Served pages poll for changes every `pollMs`; a report is a snapshot. */
export type PageMode =
  | { mode: 'serve'; pollMs: number; controls?: boolean }
  | { mode: 'report'; data: unknown };

/**
 * The one HTML shell every page shares; the client code draws the page from the route and the data.
 * Served: assets by URL, data fetched from /api. Report: assets and all data inlined, no network at all.
 */
export function renderShell(page: PageMode): string {
  const title = 'hyperagents archive';
  if (page.mode === 'serve') {
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>${title}</title>
${STYLES.map((s) => `<link rel="stylesheet" href="/assets/${s}">`).join('\n')}
</head><body data-mode="serve" data-poll-ms="${Math.max(50, Math.round(page.pollMs))}"${page.controls === true ? ' data-controls="on"' : ''}><main id="app">Loading…</main>
${SCRIPTS.map((s) => `<script src="/assets/${s}"></script>`).join('\n')}
</body></html>`;
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${title} report</title>
${STYLES.map((s) => `<style>${readAsset(s).replace(/<\/(style)/gi, '<\\/$1')}</style>`).join('\n')}
</head><body data-mode="report"><main id="app">Loading…</main>
<script type="application/json" id="report-data">${scriptJson(page.data)}</script>
${SCRIPTS.map((s) => `<script>${inlineScript(readAsset(s))}</script>`).join('\n')}
</body></html>`;
}
