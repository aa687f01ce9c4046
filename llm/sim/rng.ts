import { mulberry32 } from '../../system/rng.ts';
/** Deterministic hashing and pseudo-random numbers over string keys (the sim never uses Math.random). */

export type KeyPart = string | number | boolean | null | undefined;

/** 32-bit FNV-1a over the parts (separated by NUL), finished with murmur3's fmix32 for avalanche. */
export function hashKey(...parts: KeyPart[]): number {
  const text = parts.map((p) => String(p)).join('\u0000');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) fixed by the key. */
export function hash01(...parts: KeyPart[]): number {
  return hashKey(...parts) / 0x1_0000_0000;
}

/** mulberry32 stream in [0, 1) seeded from the key. */
export function createRng(...parts: KeyPart[]): () => number {
  return mulberry32(hashKey(...parts));
}

export function pick<T>(items: readonly T[], r: number): T | undefined {
  return items[Math.floor(r * items.length)];
}
