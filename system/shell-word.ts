/** A word as a POSIX shell reads it back: quoted when it holds anything but safe characters. Pure. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
