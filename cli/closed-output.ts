let installed = false;

/**
 * A reader that stops reading our output (`hyperagents chat ... | head -c 10`, a closed terminal) is not an
 * error of the command: later writes to that stream are dropped, and the command ends as it would have.
 * Without this, the first write after the reader left ends the process with an EPIPE stack trace.
 */
export function dropOutputToClosedPipes(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
      throw error;
    });
  }
}
