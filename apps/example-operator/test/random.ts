/**
 * A seeded pseudo-random source for property tests: each run draws fresh seeds (or the seed in
 * `PROPERTY_SEED`), and a failure names the seed so it can be replayed exactly.
 */

/** A deterministic generator (mulberry32). */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T;
  /** `true` with probability `p`. */
  chance(p: number): boolean;
}

/** A generator for `seed`. */
export function random(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as (typeof items)[number];
    },
    chance: (p) => next() < p,
  };
}

/**
 * Runs `property` for `runs` seeds; rethrows the first failure with its seed in the message
 * (replay with `PROPERTY_SEED=<seed>`).
 */
export function forAll(runs: number, property: (rnd: Random, seed: number) => void): void {
  const fixed = process.env.PROPERTY_SEED;
  const first = fixed ? Number(fixed) : Math.floor(Math.random() * 2 ** 31);
  const count = fixed ? 1 : runs;
  for (let i = 0; i < count; i++) {
    const seed = (first + i) >>> 0;
    try {
      property(random(seed), seed);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`property failed for seed ${seed} (replay: PROPERTY_SEED=${seed}): ${message}`, {
        cause: error,
      });
    }
  }
}
