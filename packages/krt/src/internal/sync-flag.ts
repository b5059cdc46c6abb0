/** A one-way synced flag with callbacks and abortable waits; `stop()` fails pending waits. */
export class SyncFlag {
  #synced = false;
  #stopped = false;
  #callbacks: Array<() => void> | undefined;
  #waiters: Set<(v: boolean) => void> | undefined;

  hasSynced(): boolean {
    return this.#synced;
  }

  isStopped(): boolean {
    return this.#stopped;
  }

  markSynced(): void {
    if (this.#synced || this.#stopped) return;
    this.#synced = true;
    const cbs = this.#callbacks;
    this.#callbacks = undefined;
    const waiters = this.#waiters;
    this.#waiters = undefined;
    if (cbs) for (const cb of cbs) cb();
    if (waiters) for (const w of waiters) w(true);
  }

  /** Calls `cb` once synced (at once if already); returns an unsubscribe function. */
  onSynced(cb: () => void): () => void {
    if (this.#synced) {
      cb();
      return noop;
    }
    if (this.#stopped) return noop;
    if (this.#callbacks === undefined) this.#callbacks = [];
    this.#callbacks.push(cb);
    return () => {
      const cbs = this.#callbacks;
      if (!cbs) return;
      const i = cbs.indexOf(cb);
      if (i >= 0) cbs.splice(i, 1);
    };
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#callbacks = undefined;
    const waiters = this.#waiters;
    this.#waiters = undefined;
    if (waiters) for (const w of waiters) w(false);
  }

  wait(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (this.#stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      if (this.#waiters === undefined) this.#waiters = new Set();
      const waiters = this.#waiters;
      const finish = (v: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#waiters?.delete(finish);
        resolve(v);
      };
      const onAbort = (): void => finish(false);
      waiters.add(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function noop(): void {}

/**
 * Calls `cb` once `s` synced: synchronously through krt's own registrations, otherwise through
 * `waitUntilSynced` (bounded by `signal`). Returns an unsubscribe function.
 */
export function whenSynced(
  s: { hasSynced(): boolean; waitUntilSynced(signal?: AbortSignal): Promise<boolean> },
  signal: AbortSignal,
  cb: () => void,
): () => void {
  const on = (s as { onSynced?: (cb: () => void) => () => void }).onSynced;
  if (typeof on === 'function') return on.call(s, cb);
  if (s.hasSynced()) {
    cb();
    return noop;
  }
  let cancelled = false;
  void s.waitUntilSynced(signal).then((ok) => {
    if (ok && !cancelled) cb();
  });
  return () => {
    cancelled = true;
  };
}
