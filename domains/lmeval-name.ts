import { readFileSync } from 'node:fs';

/** The `task:` a task YAML names, read by its line (for the domain's name), or null. Never throws. */
export function lmevalTaskName(file: string): string | null {
  try {
    return /^task:\s*["']?([^\s"'#]+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}
