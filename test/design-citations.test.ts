import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/*
 * The design the code follows lives in the repository: a comment cites a section of docs/architecture.md
 * or agents/AGENTS.md by its title, and that section exists. A citation of a document the repository does
 * not hold (the old numbered design sections) fails here.
 */

const TEXT_FILES = ['*.ts', '*.mts', '*.mjs', '*.js', '*.md', '*.sh', '*.json', '*.yml', '*.yaml', '*.css'];

const tracked = (): { file: string; text: string }[] =>
  execFileSync('git', ['ls-files', '-z', '--', ...TEXT_FILES], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\0')
    // This file's own examples of citations are not citations.
    .filter(
      (file) => file !== '' && !file.startsWith('test/fixtures/') && file !== 'test/design-citations.test.ts',
    )
    .map((file) => ({ file, text: readFileSync(path.join(PROJECT_ROOT, file), 'utf8') }));

/** A numbered section of a design document that is not in the repository. */
const MISSING_DESIGN = /DESIGN(?:\.md)? §/;

/** `docs/architecture.md, 'Title'` or `agents/AGENTS.md, 'Title'`, possibly wrapped over a comment line. */
const CITATION = /(docs\/architecture\.md|agents\/AGENTS\.md),\s+(?:\*\s+)?'([^']+)'/g;

/** The titles of a Markdown file's headings, without a parenthesis that ends one. */
const headings = (file: string): Set<string> =>
  new Set(
    readFileSync(path.join(PROJECT_ROOT, file), 'utf8')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) =>
        line
          .replace(/^#+ /, '')
          .replace(/ \(.*\)$/, '')
          .trim(),
      ),
  );

/** Every citation in `text` as `file: 'Title'`, with the cited text unwrapped (`' * '` line starts removed). */
function citations(text: string): { doc: string; title: string }[] {
  const unwrapped = text.replace(/\n\s*(?:\*|\/\/)?\s*/g, ' ');
  return [...unwrapped.matchAll(CITATION)].map((m) => ({ doc: m[1]!, title: m[2]!.replace(/\s+/g, ' ') }));
}

describe('the design the code cites', () => {
  const sources = tracked();

  it('cites no design document the repository lacks', () => {
    const stale = sources.flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, i) => (MISSING_DESIGN.test(line) ? `${file}:${i + 1}: ${line.trim()}` : null))
        .filter((hit) => hit !== null),
    );
    expect(stale, 'cite a section of docs/architecture.md by its title instead').toEqual([]);
  });

  it('cites only sections that exist', () => {
    const titles = new Map<string, Set<string>>();
    const missing: string[] = [];
    let count = 0;
    for (const { file, text } of sources) {
      for (const { doc, title } of citations(text)) {
        count++;
        const known = titles.get(doc) ?? titles.set(doc, headings(doc)).get(doc)!;
        if (!known.has(title)) missing.push(`${file} cites ${doc}, '${title}', which has no such section`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThan(15);
  });

  it.each([
    ["(docs/architecture.md, 'Model calls')", 'Model calls'],
    ["(docs/architecture.md, 'The\n * simulated model')", 'The simulated model'],
    ["(agents/AGENTS.md, 'The interface that must keep working')", 'The interface that must keep working'],
  ])('reads a citation %j', (text, title) => {
    expect(citations(text).map((c) => c.title)).toEqual([title]);
  });
});
