import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './run-cli.ts';

/** The pages a user reads: the README and every page under `docs/`, as paths from the project root. */
export function docPages(): string[] {
  const docs = readdirSync(path.join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function readPage(page: string): string {
  return readFileSync(path.join(PROJECT_ROOT, page), 'utf8');
}

export interface CodeBlock {
  page: string;
  /** The info string after the opening fence: '' for a plain block, 'bash', 'ts', ... */
  lang: string;
  lines: string[];
}

const FENCE = /^```(\w*)\n([\s\S]*?)^```/gm;

/** The fenced code blocks of a page (or of part of one). */
export function codeBlocks(page: string, text = readPage(page)): CodeBlock[] {
  return [...text.matchAll(FENCE)].map((m) => ({ page, lang: m[1]!, lines: m[2]!.split('\n') }));
}

/** A page's text from a heading to the next heading of the same or a higher level. */
export function section(text: string, heading: string): string {
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = heading.match(/^#+/)![0].length;
  const next = [...text.slice(start + heading.length).matchAll(/^(#+) /gm)].find(
    (m) => m[1]!.length <= level && !insideFence(text, start + heading.length + m.index),
  );
  return text.slice(start, next === undefined ? undefined : start + heading.length + next.index);
}

function insideFence(text: string, offset: number): boolean {
  return (text.slice(0, offset).match(/^```/gm) ?? []).length % 2 === 1;
}

/** Cuts the description a synopsis puts beside a command, after a run of three or more spaces. */
const withoutProse = (line: string): string => line.trim().split(/\s{3,}/)[0]!;

/**
 * The `npx` commands of a shell or plain block, each on one line: a backslash continues a command, and in
 * a shell block `#` starts a comment; in a plain block (a synopsis) the indented lines after a command
 * that hold options continue it, and the prose beside a command is left out.
 */
export function commandsOf(block: CodeBlock): string[] {
  if (block.lang !== 'bash' && block.lang !== '') return [];
  const lines = block.lines
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n');
  if (block.lang === 'bash') {
    return lines.map((line) => line.replace(/\s+#.*$/, '')).filter((line) => line.startsWith('npx '));
  }
  const commands: string[] = [];
  for (const line of lines) {
    if (line.startsWith('npx ')) commands.push(withoutProse(line));
    else if (/^\s/.test(line) && commands.length > 0 && /^[[\-"]/.test(withoutProse(line))) {
      commands[commands.length - 1] += ` ${withoutProse(line)}`;
    }
  }
  return commands;
}

/** The command a line runs: `generate-loop`, or the `hyperagents` subcommand (`--version` for the version). */
export function commandName(command: string): string {
  const [, bin, sub] = command.split(/\s+/);
  return bin === 'generate-loop' ? bin : (sub ?? '');
}

/** The subcommands that have a help of their own, beyond their command's. */
const SUBCOMMANDS: Record<string, string[]> = {
  domains: ['test'],
  experiment: ['report'],
  queue: ['status'],
};

/** The bin and arguments that print the help a command's options are listed in. */
export function helpFor(command: string): ['hyperagents' | 'generate-loop', string[]] {
  const [, bin, sub, subsub] = command.split(/\s+/);
  if (bin === 'generate-loop') return ['generate-loop', ['--help']];
  if (sub === undefined || sub.startsWith('-')) return ['hyperagents', ['--help']];
  if (subsub !== undefined && SUBCOMMANDS[sub]?.includes(subsub))
    return ['hyperagents', [sub, subsub, '--help']];
  return ['hyperagents', [sub, '--help']];
}

/**
 * The options a command names, alone or in a synopsis's brackets and alternatives: its own, and those it
 * passes on to generate-loop (after `--`, or as the value of an option, as `experiment --config` takes).
 */
export function optionsOf(command: string): { own: string[]; passed: string[] } {
  const [head, ...tail] = command.split(/\s--\s/);
  const find = (text: string, before: string) =>
    text.match(new RegExp(`(?<=[${before}])--[a-z][a-z-]*`, 'g')) ?? [];
  return {
    own: find(head!, '\\s[|'),
    passed: [...find(head!, '="'), ...tail.flatMap((text) => find(` ${text}`, '\\s[|="'))],
  };
}

export interface Link {
  page: string;
  /** The path it names, from the project root; the page itself for an anchor alone. */
  file: string;
  anchor: string | null;
  text: string;
}

/** The relative links of a page, outside code blocks and code spans. */
export function relativeLinks(page: string, text = readPage(page)): Link[] {
  const prose = text.replace(FENCE, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)]
    .filter((m) => !/^[a-z][a-z+.-]*:/i.test(m[2]!))
    .map((m) => {
      const [target, anchor] = m[2]!.split('#') as [string, string | undefined];
      const file =
        target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
      return { page, file, anchor: anchor ?? null, text: m[1]! };
    });
}

/** The anchors of a page's headings, as GitHub makes them (lowercase, punctuation dropped, a number on repeats). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of text.replace(FENCE, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
