/**
 * Key redaction on the way into logs, transcripts and the archive. A key must never be written where a
 * later reader (or a later variant, through its evals folder) could see it, whoever put it in the text.
 */

/** Shapes of provider and platform keys, matched wherever they appear. */
const KEY_SHAPES: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/g,
  /sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /AIza[0-9A-Za-z_-]{30,}/g,
  /gh[pousr]_[A-Za-z0-9]{30,}/g,
  /github_pat_[A-Za-z0-9_]{30,}/g,
  /xox[abprs]-[A-Za-z0-9-]{10,}/g,
  /AKIA[0-9A-Z]{16}/g,
  /hf_[A-Za-z0-9]{30,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

export const REDACTED = '[redacted]';

/** Variables whose values are secrets: keys, tokens, passwords. */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;
/** Shorter values are too likely to occur by chance in ordinary text. */
const MIN_SECRET_LENGTH = 12;

/** The secret values of an environment (with `.env` under it): what must never be written anywhere. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH,
    )
    .map(([, value]) => value as string);
}

export type Redactor = (text: string) => string;

/** Replaces every key-shaped string and every known secret value with `[redacted]`. Pure. */
export function createRedactor(secrets: readonly string[] = []): Redactor {
  const known = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const shape of KEY_SHAPES) out = out.replace(shape, REDACTED);
    return out;
  };
}

/** Redacts every string inside a JSON-like value (event data, predictions). */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)]));
  }
  return value;
}
