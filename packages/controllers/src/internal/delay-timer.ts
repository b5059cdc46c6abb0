import type { Clock, TimerHandle } from '../clock.ts';
import { DelayHeap } from './delay-heap.ts';

/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); longer ones fire after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A queue's delayed adds: a {@link DelayHeap} (the earliest pending delay per key wins) and the one
 * timer, armed for the earliest due time, that hands the due values to `release`.
 */
export class DelayTimer<V> {
  readonly #heap = new DelayHeap<V>();
  readonly #clock: Clock;
  readonly #release: (value: V) => void;
  #timer: TimerHandle | undefined;
  #timerAt: number | undefined;

  constructor(clock: Clock, release: (value: V) => void) {
    this.#clock = clock;
    this.#release = release;
  }

  /** Releases `value` at `readyAt` (clock time), unless `key` is already due earlier. */
  schedule(key: string, value: V, readyAt: number): void {
    if (this.#heap.schedule(key, value, readyAt)) this.#arm();
  }

  /** Drops every pending add and the timer. */
  clear(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = undefined;
    this.#heap.clear();
  }

  #arm(): void {
    const at = this.#heap.peekTime();
    if (at === this.#timerAt) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = at;
    if (at === undefined) return;
    // Node (and fake timers) turn a delay above MAX_TIMER_MS into 1 ms: a far-off due time is
    // reached in steps of at most MAX_TIMER_MS, the timer re-arming itself when it fires early.
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = undefined;
        for (const entry of this.#heap.popDue(this.#clock.now())) this.#release(entry.value);
        this.#arm();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - this.#clock.now())),
    );
  }
}
