/**
 * Cuts `text` to at most about `maxChars` characters, keeping the head and the tail and putting a note
 * in the middle that says how much was left out. Text within the limit comes back unchanged.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars);
  const headLength = Math.ceil(keep / 2);
  const tailLength = keep - headLength;
  const omitted = text.length - headLength - tailLength;
  const head = text.slice(0, headLength);
  const tail = tailLength > 0 ? text.slice(-tailLength) : '';
  return `${head}\n[... ${omitted} characters omitted; ${text.length} in all ...]\n${tail}`;
}
