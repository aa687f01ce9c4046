import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
const MODULES = path.join(WEB_DIR, '..', 'node_modules');

/**
 * Every file the pages load, by the name they are served under. A fixed list: an asset URL can name
 * nothing else. Libraries come from the project's node_modules (no CDN; the pages work offline).
 */
export const ASSETS = {
  'uPlot.min.css': path.join(MODULES, 'uplot', 'dist', 'uPlot.min.css'),
  'diff2html.min.css': path.join(MODULES, 'diff2html', 'bundles', 'css', 'diff2html.min.css'),
  'style.css': path.join(WEB_DIR, 'client', 'style.css'),
  'uPlot.iife.min.js': path.join(MODULES, 'uplot', 'dist', 'uPlot.iife.min.js'),
  'd3-hierarchy.min.js': path.join(MODULES, 'd3-hierarchy', 'dist', 'd3-hierarchy.min.js'),
  'diff2html.min.js': path.join(MODULES, 'diff2html', 'bundles', 'js', 'diff2html.min.js'),
  'diff2html-ui-base.min.js': path.join(MODULES, 'diff2html', 'bundles', 'js', 'diff2html-ui-base.min.js'),
  'highlight.min.js': path.join(MODULES, 'highlight.js', 'lib', 'core.js'),
  'util.js': path.join(WEB_DIR, 'client', 'util.js'),
  'charts.js': path.join(WEB_DIR, 'client', 'charts.js'),
  'tree.js': path.join(WEB_DIR, 'client', 'tree.js'),
  'views-costs.js': path.join(WEB_DIR, 'client', 'views-costs.js'),
  'views-alerts.js': path.join(WEB_DIR, 'client', 'views-alerts.js'),
  'views-run-batches.js': path.join(WEB_DIR, 'client', 'views-run-batches.js'),
  'views-run-health.js': path.join(WEB_DIR, 'client', 'views-run-health.js'),
  'views-run-controls.js': path.join(WEB_DIR, 'client', 'views-run-controls.js'),
  'views-run-variants.js': path.join(WEB_DIR, 'client', 'views-run-variants.js'),
  'views-run-charts.js': path.join(WEB_DIR, 'client', 'views-run-charts.js'),
  'views-run-regressions.js': path.join(WEB_DIR, 'client', 'views-run-regressions.js'),
  'views-runs.js': path.join(WEB_DIR, 'client', 'views-runs.js'),
  'views-run.js': path.join(WEB_DIR, 'client', 'views-run.js'),
  'views-variant-diff.js': path.join(WEB_DIR, 'client', 'views-variant-diff.js'),
  'views-variant-tasks.js': path.join(WEB_DIR, 'client', 'views-variant-tasks.js'),
  'views-variant-logs.js': path.join(WEB_DIR, 'client', 'views-variant-logs.js'),
  'views-variant-files.js': path.join(WEB_DIR, 'client', 'views-variant-files.js'),
  'views-variant.js': path.join(WEB_DIR, 'client', 'views-variant.js'),
  'views-compare.js': path.join(WEB_DIR, 'client', 'views-compare.js'),
  'app.js': path.join(WEB_DIR, 'client', 'app.js'),
} as const;

export type AssetName = keyof typeof ASSETS;

export const STYLES: readonly AssetName[] = ['uPlot.min.css', 'diff2html.min.css', 'style.css'];
/** In load order: libraries, then the page code that uses them. */
export const SCRIPTS: readonly AssetName[] = [
  'uPlot.iife.min.js',
  'd3-hierarchy.min.js',
  'diff2html.min.js',
  'diff2html-ui-base.min.js',
  'highlight.min.js',
  'util.js',
  'charts.js',
  'tree.js',
  'views-costs.js',
  'views-alerts.js',
  'views-run-batches.js',
  'views-run-health.js',
  'views-run-controls.js',
  'views-run-variants.js',
  'views-run-charts.js',
  'views-run-regressions.js',
  'views-runs.js',
  'views-run.js',
  'views-variant-diff.js',
  'views-variant-tasks.js',
  'views-variant-logs.js',
  'views-variant-files.js',
  'views-variant.js',
  'views-compare.js',
  'app.js',
];

export const isAsset = (name: string): name is AssetName => Object.hasOwn(ASSETS, name);

/** The languages the diffs are highlighted in (highlight.js names; file extensions map to them). */
export const HIGHLIGHT_LANGUAGES = [
  'typescript',
  'javascript',
  'json',
  'markdown',
  'python',
  'bash',
  'shell',
];

/**
 * highlight.js as one script: its core with only HIGHLIGHT_LANGUAGES registered, as `window.hljs` (each file is
 * a self-contained CommonJS module, wrapped here).
 */
function highlightScript(): string {
  const module = (file: string) =>
    `(function () { var module = { exports: {} }; var exports = module.exports;\n${readFileSync(file, 'utf8')}\nreturn module.exports; })()`;
  const languages = HIGHLIGHT_LANGUAGES.map(
    (name) =>
      `hljs.registerLanguage(${JSON.stringify(name)}, ${module(path.join(MODULES, 'highlight.js', 'lib', 'languages', `${name}.js`))});`,
  );
  return `(function () {\nvar hljs = ${module(ASSETS['highlight.min.js'])};\n${languages.join('\n')}\nwindow.hljs = hljs;\n})();\n`;
}

const cache = new Map<AssetName, string>();
export function readAsset(name: AssetName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = name === 'highlight.min.js' ? highlightScript() : readFileSync(ASSETS[name], 'utf8');
    if (!name.endsWith('.js') || name.includes('.min.')) cache.set(name, text);
  }
  return text;
}

export const contentType = (name: AssetName): string =>
  name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
