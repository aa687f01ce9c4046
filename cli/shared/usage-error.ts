/** A mistake in what the user asked for: printed as one paragraph, exit code 2, nothing written. */
export class UsageError extends Error {
  override name = 'UsageError';
}
