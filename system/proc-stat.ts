import { readFileSync } from 'node:fs';

/** What /proc/PID/stat says of a process (Linux), as far as the project reads it. */
export interface ProcStat {
  /** The command name, as the kernel keeps it (at most 15 characters). */
  command: string;
  parent: number;
  processGroup: number;
  /** User plus system CPU time, in clock ticks (100 a second on Linux). */
  cpuTicks: number;
}

/**
 * /proc/PID/stat read, or null when the process is gone or the file cannot be read. The fields after the
 * command are counted from its closing parenthesis, since a command name may hold spaces and parentheses.
 */
export function procStat(pid: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  const [parent, processGroup, utime, stime] = [fields[1], fields[2], fields[11], fields[12]].map(Number);
  if (close < 0 || ![parent, processGroup, utime, stime].every(Number.isInteger)) return null;
  return {
    command: stat.slice(stat.indexOf('(') + 1, close),
    parent: parent!,
    processGroup: processGroup!,
    cpuTicks: utime! + stime!,
  };
}
