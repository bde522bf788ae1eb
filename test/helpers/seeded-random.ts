// Random choices a fault test can replay: the seed comes from FAULT_SEED when set, is printed by
// the test, and drives mulberry32 (a small, well-known 32-bit generator).

export const FAULT_SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

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
