import {
  archiveFile,
  openArchiveReader,
  type RunFigures,
  runFigures,
  variantDiff,
} from '../archive/index.ts';
import { compareRuns } from './compare.ts';
import { compareVariants, type RunPage, runPage, type TaskSource, variantPage } from './data.ts';
import { renderShell } from './page.ts';
import { runRegressions } from './regressions-route.ts';

const runPath = (id: string): string => `/runs/${encodeURIComponent(id)}`;

/**
 * The browser's pages for `runs` as one self-contained HTML file: every asset and every answer the
 * pages would ask the server for (runs, each run, each variant with its diff against its parent and its
 * task comparison with its parent, and the comparison of all runs) inlined. Opens from disk, no network.
 */
export async function buildReport(
  runs: readonly { id: string; dir: string }[],
  tasks?: TaskSource,
): Promise<string> {
  const api: Record<string, unknown> = {};
  const pages: (RunPage & { figures: RunFigures | null })[] = [];
  for (const { id, dir } of runs) {
    const reader = openArchiveReader(archiveFile(dir));
    try {
      const page = runPage(reader);
      if (page === null) continue;
      pages.push({ ...page, figures: runFigures(reader) });
      api[runPath(id)] = page;
      api[`${runPath(id)}/regressions`] = runRegressions(reader);
      for (const v of page.variants) {
        api[`${runPath(id)}/variants/${v.id}`] = await variantPage(reader, id, dir, v.id, tasks);
        if (v.parent === null) continue;
        api[`${runPath(id)}/compare/${v.id}/${v.parent}`] = compareVariants(reader, id, v.id, v.parent);
        const parent = page.variants.find((p) => p.id === v.parent);
        if (v.commit !== null && parent?.commit != null) {
          const diff = await variantDiff(dir, parent.commit, v.commit);
          if (diff.ok) api[`${runPath(id)}/diff/${v.parent}/${v.id}`] = { patch: diff.patch };
        }
      }
    } finally {
      reader.close();
    }
  }
  api['/runs'] = pages.map((p) => p.run);
  if (pages.length > 1) {
    api[`/compare?runs=${pages.map((p) => encodeURIComponent(p.run.id)).join(',')}`] = {
      runs: pages.map((p) => p.run),
      comparison: compareRuns(pages),
    };
  }
  return renderShell({ mode: 'report', data: { api, runs: pages.map((p) => p.run.id) } });
}
