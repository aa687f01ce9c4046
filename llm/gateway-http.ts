import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_STATUS, type ErrorType, type GatewayErrorBody } from './types.ts';

/** HTTP plumbing of the gateway: bounded request bodies and JSON answers. */

export const MAX_BODY_BYTES = 20 * 1024 * 1024;

export type Body = { kind: 'ok'; text: string } | { kind: 'too_large' } | { kind: 'aborted' };

/** Reads the body up to MAX_BODY_BYTES; beyond that the rest is drained and dropped. */
export function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      req.resume();
      resolve({ kind: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.resume();
        chunks.length = 0;
        resolve({ kind: 'too_large' });
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) resolve({ kind: 'aborted' });
    });
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, type: ErrorType, message: string, retryable = false): void {
  const body: GatewayErrorBody = { error: { type, message, retryable } };
  sendJson(res, ERROR_STATUS[type], body);
}
