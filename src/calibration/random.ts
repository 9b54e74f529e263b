// Bound once: a global lookup per call is slow inside a vm context (Jest's), and a bootstrap draws millions.
const imul = Math.imul;

/** A small seeded generator (mulberry32), so bootstrap intervals and folds repeat run to run. */
export function seededRandom(seed = 1): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
