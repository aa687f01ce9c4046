/** Where the queue lives: a Redis server and database. */
export interface RedisTarget {
  host: string;
  port: number;
  db: number;
}

export type ParsedRedisUrl = { ok: true; target: RedisTarget } | { ok: false; message: string };

const FORM = 'redis://HOST:PORT[/DB] (for example redis://127.0.0.1:6379/0)';

/** Parses `redis://HOST[:PORT][/DB]`; anything else (another scheme, a password, a path) is a message. */
export function parseRedisUrl(text: string): ParsedRedisUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `"${text}" is not a Redis URL; write ${FORM}.` };
  }
  if (url.protocol !== 'redis:') {
    return { ok: false, message: `"${text}" is not a redis:// URL; write ${FORM}.` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      message: `"${text}" carries a user or password, which would be shown in process lists; give a URL without them and protect Redis by its network (bind it to a private address).`,
    };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return { ok: false, message: `"${text}" names no host; write ${FORM}.` };
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!/^\d*$/.test(dbText) || !Number.isInteger(db) || db < 0 || db > 15) {
    return { ok: false, message: `"${text}": the database must be a number from 0 to 15; write ${FORM}.` };
  }
  if (url.search !== '' || url.hash !== '') {
    return { ok: false, message: `"${text}" has options this URL does not take; write ${FORM}.` };
  }
  return { ok: true, target: { host, port, db } };
}

export const formatRedisTarget = (t: RedisTarget): string =>
  `redis://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}/${t.db}`;
