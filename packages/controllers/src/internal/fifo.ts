/** A growable ring buffer: O(1) push and shift, no array shifting. */
export class Fifo<T> {
  #buf: Array<T | undefined>;
  #head = 0;
  #size = 0;
  #mask: number;

  constructor(initialCapacity = 16) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.#buf = new Array<T | undefined>(cap);
    this.#mask = cap - 1;
  }

  get length(): number {
    return this.#size;
  }

  push(value: T): void {
    if (this.#size === this.#buf.length) this.#grow();
    this.#buf[(this.#head + this.#size) & this.#mask] = value;
    this.#size++;
  }

  /** Removes and returns the oldest value; `undefined` when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const value = this.#buf[this.#head];
    this.#buf[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    this.#size--;
    return value;
  }

  clear(): void {
    this.#buf = new Array<T | undefined>(16);
    this.#mask = 15;
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const old = this.#buf;
    const cap = old.length * 2;
    const next = new Array<T | undefined>(cap);
    for (let i = 0; i < this.#size; i++) next[i] = old[(this.#head + i) & this.#mask];
    this.#buf = next;
    this.#head = 0;
    this.#mask = cap - 1;
  }
}
