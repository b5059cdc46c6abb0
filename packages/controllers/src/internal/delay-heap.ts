/** One pending delayed add. */
export interface DelayedEntry<V> {
  readonly key: string;
  value: V;
  readyAt: number;
  /** Set when a later, earlier-due add replaced this entry; the heap skips it. */
  cancelled: boolean;
}

/**
 * Delayed adds, ordered by due time, at most one live entry per key (an earlier due time
 * replaces a later one, as in client-go's delaying queue). Replaced entries stay in the heap,
 * cancelled, and are skipped when popped.
 */
export class DelayHeap<V> {
  readonly #heap: Array<DelayedEntry<V>> = [];
  readonly #byKey = new Map<string, DelayedEntry<V>>();

  get size(): number {
    return this.#byKey.size;
  }

  /** Schedules `key`; returns true when the earliest due time changed. */
  schedule(key: string, value: V, readyAt: number): boolean {
    const existing = this.#byKey.get(key);
    if (existing) {
      if (existing.readyAt <= readyAt) return false;
      existing.cancelled = true;
    }
    const entry: DelayedEntry<V> = { key, value, readyAt, cancelled: false };
    this.#byKey.set(key, entry);
    this.#push(entry);
    return this.#heap[0] === entry;
  }

  /** The due time of the earliest live entry, or undefined. */
  peekTime(): number | undefined {
    this.#dropCancelled();
    return this.#heap[0]?.readyAt;
  }

  /** Removes and returns every live entry due at or before `now`, earliest first. */
  popDue(now: number): Array<DelayedEntry<V>> {
    const out: Array<DelayedEntry<V>> = [];
    for (;;) {
      this.#dropCancelled();
      const top = this.#heap[0];
      if (!top || top.readyAt > now) return out;
      this.#pop();
      this.#byKey.delete(top.key);
      out.push(top);
    }
  }

  clear(): void {
    this.#heap.length = 0;
    this.#byKey.clear();
  }

  #dropCancelled(): void {
    while (this.#heap.length > 0 && this.#heap[0]!.cancelled) this.#pop();
  }

  #push(entry: DelayedEntry<V>): void {
    const h = this.#heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.readyAt <= entry.readyAt) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && h[r]!.readyAt < h[l]!.readyAt ? r : l;
      if (h[c]!.readyAt >= last.readyAt) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
  }
}
