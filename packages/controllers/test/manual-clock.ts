import type { Clock } from '../src/clock.ts';

/** A {@link Clock} whose time moves only by {@link ManualClock.advance}. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and runs, in order, every timer due by then. */
  advance(ms: number): void;
}

/** A clock for tests that must not depend on how fast the machine runs: time starts at 0. */
export function manualClock(): ManualClock {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { readonly at: number; readonly fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout: (handle) => {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        let due: [number, { readonly at: number; readonly fn: () => void }] | undefined;
        for (const entry of timers)
          if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = until;
    },
  };
}
