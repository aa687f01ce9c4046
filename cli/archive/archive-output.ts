import { writeStdout } from '../shared/write-output.ts';

/** `hyperagents archive` output on stdout, ending with a newline. */
export const out = (text: string): void => writeStdout(text.endsWith('\n') ? text : `${text}\n`);
export const printJson = (value: unknown): void => out(JSON.stringify(value, null, 2));

/** A change of score, signed, to three places. */
export const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
