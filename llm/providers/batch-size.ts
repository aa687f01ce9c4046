import type { BatchApi } from '../batch-api.ts';
import type { ProviderError } from '../provider.ts';

/**
 * Why a batch of `count` requests whose body is `bytes` long cannot be submitted within `limits`, as an error
 * that says what to do; undefined when it can. `body` names what the provider measures (`its file`, `its
 * inlined requests`). Checked before any call, so an oversized batch costs nothing. Pure.
 */
export function batchTooLarge(
  label: string,
  limits: BatchApi['limits'],
  { count, bytes }: { count: number; bytes: number },
  body: string,
): ProviderError | undefined {
  const why =
    count === 0
      ? 'it holds no requests'
      : count > limits.maxRequests
        ? `it holds ${count} requests, over the limit of ${limits.maxRequests}`
        : bytes > limits.maxBytes
          ? `${body} is ${bytes} bytes, over the limit of ${limits.maxBytes}`
          : undefined;
  if (why === undefined) return undefined;
  return badRequest(`${label} cannot take this batch: ${why}. Submit the requests as several batches.`);
}

/** A request or batch the provider would refuse as it stands: not retried. */
export function badRequest(message: string): ProviderError {
  return { type: 'bad_request', retryable: false, message };
}
