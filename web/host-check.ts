import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Context, Next } from 'hono';

/*
 * A page on another site can point its own name at 127.0.0.1 (DNS rebinding) and read whatever answers there
 * through its visitor's browser. The browser still sends that site's name as Host, so the server answers only
 * to the names it is reached by, and refuses a change from a page of another origin.
 */

/** The names every server of this project answers to: this machine, as loopback. */
export const LOOPBACK_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * The host part of a Host header or an origin's authority, lower case, without its port or an IPv6 address's
 * brackets; null when it is not one. Pure.
 */
export function hostName(authority: string): string | null {
  const text = authority.trim().toLowerCase();
  if (text === '') return null;
  if (isIPv6(text)) return text;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    const rest = text.slice(end + 1);
    return end < 0 || (rest !== '' && !/^:\d+$/.test(rest)) ? null : text.slice(1, end);
  }
  const [name, port, ...more] = text.split(':');
  if (more.length > 0 || name === undefined || (port !== undefined && !/^\d+$/.test(port))) return null;
  return name.replace(/\.$/, '');
}

/**
 * The names a server bound to `bound` answers to: loopback, `bound` itself unless it is every interface (then
 * every address of this machine instead), and `extra` (the names a user added). Lower case.
 */
export function allowedHostNames(bound: string, extra: readonly string[] = []): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, ...extra.map((n) => n.toLowerCase())]);
  if (!WILDCARD.has(bound)) names.add(bound.toLowerCase());
  else
    for (const addresses of Object.values(networkInterfaces()))
      for (const a of addresses ?? []) names.add(a.address.toLowerCase());
  return names;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses, before any route runs, a request whose Host is not one of `names` (421: this server is not the
 * one that name means), and a request that changes something (any method but GET, HEAD and OPTIONS) that a
 * page of another origin sent (403). `hint` says how to add a name.
 */
export function hostCheck(names: ReadonlySet<string>, hint: string) {
  return async (c: Context, next: Next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const name = hostName(host);
    if (name === null || !names.has(name))
      return c.text(`This server answers to ${[...names].join(', ')} only, not to "${host}". ${hint}\n`, 421);
    if (!SAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      if (origin !== undefined && origin !== 'null' && sameHost(origin, host)) return next();
      if (origin !== undefined || site === 'cross-site' || site === 'same-site')
        return c.json({ error: `changes are refused from another site (${origin ?? site})` }, 403);
    }
    return next();
  };
}

/** Whether an Origin header names the same host and port as the Host the request came to. */
function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}
