/** Jittered exponential backoff: `initial · 2ⁿ`, capped at `max`, each delay drawn from [d/2, d]. */
export class Backoff {
  #attempt = 0;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;

  constructor(initialMs: number, maxMs: number, random: () => number = Math.random) {
    if (!(initialMs > 0) || !(maxMs >= initialMs)) {
      throw new RangeError(`backoff needs 0 < initial (${initialMs}) <= max (${maxMs})`);
    }
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#random = random;
  }

  /** The next delay in ms. */
  next(): number {
    const d = Math.min(this.#maxMs, this.#initialMs * 2 ** this.#attempt);
    if (d < this.#maxMs) this.#attempt++;
    return d / 2 + this.#random() * (d / 2);
  }

  /** Starts over at the initial delay. */
  reset(): void {
    this.#attempt = 0;
  }

  /** How many delays were handed out since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }
}
