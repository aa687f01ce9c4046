import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { ProviderSpec } from '../llm/index.ts';
import { BUILT_IN_PROVIDERS } from '../llm/index.ts';
import { PROJECT_ROOT } from './run-cli.ts';

/**
 * A provider is one file: its name and the variables it reads are written in `llm/providers/<name>-provider.ts`
 * and nowhere else in the source, so adding one never means finding the lists that name the others. What is
 * checked is the text of string literals (module specifiers aside: `import 'openai'` names a package):
 * a provider's name alone (`'anthropic'`), a model id of it (`'anthropic/claude-…'`), or one of its
 * variables anywhere in the text (`'set ANTHROPIC_API_KEY'`). Comments and prose (`OpenAI`) are free;
 * tests, test helpers and fakes (`test/`, `*.test.ts`, `llm/testing/`) may name what they test.
 */

interface Source {
  file: string;
  text: string;
}

/** The file a provider is declared in. */
const fileOf = (spec: Pick<ProviderSpec, 'name'>): string => `llm/providers/${spec.name}-provider.ts`;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The patterns that name a provider in a string's text. */
function namingPatterns(spec: Pick<ProviderSpec, 'name' | 'keyVariables' | 'baseUrlVariable'>): RegExp[] {
  const name = escapeRegExp(spec.name);
  return [
    new RegExp(`^${name}$`),
    new RegExp(`(^|[\\s"'\`(])${name}/`),
    ...[...spec.keyVariables, spec.baseUrlVariable].map((v) => new RegExp(`\\b${escapeRegExp(v)}\\b`)),
  ];
}

/** The text of every string literal and template part of a file, module specifiers left out. */
function stringsOf(source: Source): { text: string; line: number }[] {
  const found: { text: string; line: number }[] = [];
  const file = ts.createSourceFile(source.file, source.text, ts.ScriptTarget.Latest, true);
  const isSpecifier = (node: ts.Node): boolean => {
    const parent = node.parent;
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
    if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
    return ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.ImportKeyword;
  };
  const visit = (node: ts.Node): void => {
    const literal =
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node);
    if (literal && !isSpecifier(node)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      found.push({ text: node.text, line });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Strings outside the providers that equal a provider's name by coincidence, each with what it is. */
const COINCIDENCES: readonly { file: string; text: string; what: string }[] = [
  { file: 'domains/exercism/go.ts', text: 'local', what: "GOTOOLCHAIN=local: Go's own toolchain" },
  {
    file: 'domains/exercism/toolchain-probe.ts',
    text: 'local',
    what: "GOTOOLCHAIN=local: Go's own toolchain, as the grader runs it",
  },
  {
    file: 'bench/queue-throughput.ts',
    text: 'local',
    what: 'the benchmark row of tasks run on this machine',
  },
];

/** `file:line: "text"` for each string outside a provider's own file that names that provider. Pure. */
function strayMentions(
  sources: readonly Source[],
  providers: readonly Pick<ProviderSpec, 'name' | 'keyVariables' | 'baseUrlVariable'>[],
): string[] {
  const stray: string[] = [];
  for (const source of sources) {
    const strings = stringsOf(source);
    for (const spec of providers) {
      if (source.file === fileOf(spec)) continue;
      const patterns = namingPatterns(spec);
      for (const { text, line } of strings) {
        if (COINCIDENCES.some((c) => c.file === source.file && c.text === text)) continue;
        if (patterns.some((p) => p.test(text))) stray.push(`${source.file}:${line}: ${JSON.stringify(text)}`);
      }
    }
  }
  return stray;
}

/** Every source file of the project that is not a test or a test's helper, committed or about to be. */
function projectSources(): Source[] {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.mts', '*.mjs', '*.js'],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  )
    .split('\0')
    .filter((file) => file !== '' && !file.endsWith('.test.ts'))
    .filter((file) => !file.startsWith('test/') && !file.startsWith('llm/testing/'));
  return [...new Set(files)].map((file) => ({
    file,
    text: readFileSync(path.join(PROJECT_ROOT, file), 'utf8'),
  }));
}

describe('a provider is named only in its own file', () => {
  const acme = { name: 'acme', keyVariables: ['ACME_API_KEY'], baseUrlVariable: 'ACME_URL' };

  it.each([
    ["const p = 'acme';", 1],
    ["const id = 'acme/rocket-1';", 1],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template, as a file holds it
    ['const m = `set ACME_API_KEY or ${x}`;', 1],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template, as a file holds it
    ['const m = `${x} or ACME_URL`;', 1],
    ["import Acme from 'acme';", 0],
    ["import type { T } from 'acme/types';", 0],
    ["const sdk = await import('acme');", 0],
    ["const m = 'Acme refused the key'; // acme/rocket-1, ACME_API_KEY", 0],
    ["const m = 'acme-wire';", 0],
  ])('%s: %i', (text, count) => {
    expect(strayMentions([{ file: 'x/y.ts', text }], [acme])).toHaveLength(count);
    expect(strayMentions([{ file: 'llm/providers/acme-provider.ts', text }], [acme])).toEqual([]);
  });

  it('holds for every built-in provider, each declared in llm/providers/<name>-provider.ts', async () => {
    for (const spec of BUILT_IN_PROVIDERS) {
      const declared = (await import(/* @vite-ignore */ `../${fileOf(spec)}`)) as Record<string, unknown>;
      expect(Object.values(declared), fileOf(spec)).toContain(spec);
    }
    const sources = projectSources();
    expect(sources.length).toBeGreaterThan(300);
    expect(strayMentions(sources, BUILT_IN_PROVIDERS)).toEqual([]);
  });
});
