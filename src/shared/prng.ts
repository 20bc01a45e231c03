/**
 * A small seeded PRNG (mulberry32): reproducible random choices without a library, so a failing
 * run (kill points, chunk cuts in vectors) can be replayed from its seed. Not for src/core, which
 * takes no randomness at all.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
