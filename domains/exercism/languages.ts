import path from 'node:path';
import { cpp } from './cpp.ts';
import { go } from './go.ts';
import { java } from './java.ts';
import { javascript, typescript } from './javascript.ts';
import {
  type ExercismLanguage,
  LANGUAGE_NAMES,
  type LanguageName,
  type ToolchainStatus,
} from './language.ts';
import { python } from './python.ts';
import { rust } from './rust.ts';

/** The languages this version grades. A language not here is read but skipped with a message. */
export const LANGUAGES: Partial<Record<LanguageName, ExercismLanguage>> = {
  cpp,
  go,
  java,
  javascript,
  python,
  rust,
  typescript,
};

const EXTENSIONS: Record<string, LanguageName> = {
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.h': 'cpp',
  '.hpp': 'cpp',
  '.go': 'go',
  '.java': 'java',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.py': 'python',
  '.rs': 'rust',
  '.ts': 'typescript',
};

/**
 * The language of an exercise: from the track's folder layout (`<lang>/exercises/practice/<name>`, as in
 * the polyglot-benchmark repository and Exercism's track repositories), else from its solution files.
 */
export function languageOf(folder: string, solution: readonly string[]): LanguageName | null {
  const parts = path.resolve(folder).split(path.sep);
  const at = parts.lastIndexOf('exercises');
  const track = at > 0 ? parts[at - 1] : undefined;
  if (track !== undefined && (LANGUAGE_NAMES as readonly string[]).includes(track))
    return track as LanguageName;
  const tracks = solution.map((f) => EXTENSIONS[path.extname(f)]).filter((l) => l !== undefined);
  return tracks[0] ?? null;
}

/** The message of a refusal for a missing toolchain: what is missing and which Debian packages provide it. */
export function refusal(language: ExercismLanguage, status: Exclude<ToolchainStatus, { ok: true }>): string {
  const packages = status.packages.length > 0 ? status.packages : language.packages;
  return (
    `${language.name} exercises need ${status.missing}, which is not installed: ` +
    `apt-get install ${packages.join(' ')}`
  );
}
