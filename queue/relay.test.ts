import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Relay, startRelay } from './relay.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'relay-test-'));
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gateway stand-in on loopback that treats each connection with `onData`. */
async function gateway(onData: (socket: Socket, chunk: Buffer) => void): Promise<URL> {
  const server: Server = createServer((socket) => socket.on('data', (chunk) => onData(socket, chunk)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return new URL(`http://127.0.0.1:${address.port}`);
}

async function relayTo(url: URL): Promise<Relay> {
  const relay = await startRelay(path.join(dir, `relay-${cleanups.length}.sock`), url);
  cleanups.push(() => relay.close());
  return relay;
}

/** Sends `request` through the relay; resolves with what came back before the connection closed. */
function exchange(relay: Relay, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(relay.socketPath);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(request);
  });
}

describe('startRelay', () => {
  it('passes bytes both ways and counts nothing when the gateway answers, then closes the idle connection', async () => {
    const relay = await relayTo(
      await gateway((socket, chunk) => socket.end(`answer to ${chunk.toString()}`)),
    );
    expect(await exchange(relay, 'question')).toBe('answer to question');
    expect(relay.failures()).toBe(0);
    expect(relay.lastFailure()).toBeNull();
  });

  it('counts a connection the gateway closes while a request on it is unanswered', async () => {
    const relay = await relayTo(await gateway((socket) => socket.end()));
    expect(await exchange(relay, 'question')).toBe('');
    expect(relay.failures()).toBe(1);
    expect(relay.lastFailure()).toContain('before answering');
  });

  it('counts a gateway that cannot be reached', async () => {
    const url = await gateway(() => undefined);
    await cleanups.shift()?.();
    const relay = await relayTo(url);
    expect(await exchange(relay, 'question')).toBe('');
    expect(relay.failures()).toBe(1);
    expect(relay.lastFailure()).toMatch(/ECONNREFUSED/);
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
