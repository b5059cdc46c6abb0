import type { Clock } from '../clock.ts';

/** A queue's gauges of the reconciles in flight, read from its workers' slots. */
export interface RunningGauges {
  /** Seconds all running reconciles have been running, summed. */
  unfinishedWorkSeconds(): number;
  /** Seconds the longest-running reconcile has been running (0 when none runs). */
  longestRunningProcessorSeconds(): number;
}

/**
 * Gauges over the workers' slots: slot `i` is busy while `running[i]` is defined, since
 * `since[i]` (clock time, ms). Both arrays are read live, not copied.
 */
export function runningGauges(
  clock: Clock,
  running: ReadonlyArray<string | undefined>,
  since: readonly number[],
): RunningGauges {
  return {
    unfinishedWorkSeconds: () => {
      const now = clock.now();
      let total = 0;
      for (let i = 0; i < running.length; i++) if (running[i] !== undefined) total += now - since[i]!;
      return total / 1000;
    },
    longestRunningProcessorSeconds: () => {
      const now = clock.now();
      let longest = 0;
      for (let i = 0; i < running.length; i++) {
        if (running[i] !== undefined) longest = Math.max(longest, now - since[i]!);
      }
      return longest / 1000;
    },
  };
}
