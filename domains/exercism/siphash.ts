const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & MASK;

/** SipHash-2-4 of `bytes` under the 128-bit key (k0, k1): what Rust's `std::hash::SipHasher` computes. */
export function siphash24(k0: bigint, k1: bigint, bytes: Uint8Array): bigint {
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const word = (at: number, length: number): bigint => {
    let m = 0n;
    for (let j = length - 1; j >= 0; j--) m = (m << 8n) | BigInt(bytes[at + j]!);
    return m;
  };
  const whole = bytes.length - (bytes.length % 8);
  for (let at = 0; at < whole; at += 8) {
    const m = word(at, 8);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  const last = word(whole, bytes.length % 8) | (BigInt(bytes.length & 0xff) << 56n);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  round();
  round();
  round();
  round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}
