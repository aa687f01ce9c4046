import type { IncomingMessage } from 'node:http';
import {
  type GatewayOptions,
  TASK_DOMAIN_HEADER,
  TASK_HEADER,
  TASK_ID_MAX_CHARS,
  type TokenGrant,
} from './gateway-types.ts';
import type { ModelProvider, ProviderResult } from './provider.ts';
import type { CallContext, ChatRequest } from './types.ts';

/** What one gateway call carries besides its request: who asked, for which task, and its ledger row's start. */

export interface Row {
  ts: string;
  started: number;
  grant: TokenGrant;
  model: string;
  task?: { domain: string; id: string };
}

/** The task the caller named (TASK_HEADER and TASK_DOMAIN_HEADER), when it named one in a usable form. */
export function taskOf(req: IncomingMessage): { domain: string; id: string } | undefined {
  const id = headerText(req, TASK_HEADER);
  const domain = headerText(req, TASK_DOMAIN_HEADER);
  return id === undefined || domain === undefined ? undefined : { domain, id };
}

/** A URI-encoded header value, decoded; undefined when absent, undecodable, too long or holding control characters. */
function headerText(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value !== 'string' || value === '' || value.length > 3 * TASK_ID_MAX_CHARS) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  if (id.length > TASK_ID_MAX_CHARS || /[\u0000-\u001f\u007f]/.test(id)) return undefined;
  return id;
}

/** A parsed chat request, its size in characters (for the cost estimate) and its ledger row. */
export interface Call {
  body: ChatRequest;
  chars: number;
  row: Row;
}

/** The fields every ledger row of a call starts with. */
export function ledgerBase(row: Row) {
  return {
    ts: row.ts,
    runId: row.grant.runId,
    variantId: row.grant.variantId,
    role: row.grant.role,
    model: row.model,
    ...(row.task === undefined ? {} : { task: row.task }),
  };
}

/** The provider of a model id, or undefined when making it throws (reported as an unknown model). */
export function safeProvider(opts: GatewayOptions, id: string): ModelProvider | undefined {
  try {
    return opts.providers(id);
  } catch {
    return undefined;
  }
}

/** A provider's answer; a provider that throws is an internal, retryable error, never a crash. */
export async function safeComplete(
  provider: ModelProvider,
  req: ChatRequest,
  ctx: CallContext,
  signal: AbortSignal,
): Promise<ProviderResult> {
  try {
    return await provider.complete(req, ctx, signal);
  } catch (error) {
    return {
      ok: false,
      error: { type: 'internal', message: `provider threw: ${(error as Error).message}`, retryable: true },
    };
  }
}
