/**
 * Progress on stderr. Lines are plain, so logs stay readable; on a terminal a status line below them shows
 * the task count of the evaluation under way and is redrawn in place.
 */
export function createProgress(stream: NodeJS.WriteStream, quiet: boolean) {
  const live = stream.isTTY === true && !quiet;
  let status = '';
  const clear = (): void => {
    if (live && status !== '') stream.write('\r\x1b[K');
  };
  return {
    line(text: string): void {
      if (quiet) return;
      clear();
      stream.write(`${text}\n`);
      if (live && status !== '') stream.write(status);
    },
    status(text: string): void {
      if (!live) return;
      clear();
      status = text.slice(0, Math.max(20, (stream.columns || 100) - 1));
      stream.write(status);
    },
    done(): void {
      clear();
      status = '';
    },
  };
}
