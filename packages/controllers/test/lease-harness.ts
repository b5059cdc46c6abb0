import type { ApiClient } from '@kubeloom/kube';
import type { LeaderElector } from '../src/leader-election.ts';

/**
 * How a {@link cuttableApi} behaves: pass requests through, fail them at once, hang them until
 * aborted, or `slow`: serve each request at once (a write lands) but hold its response for
 * {@link CuttableApi.slowMs} (an abort drops the response, not the write).
 */
type Link = 'up' | 'failing' | 'hanging' | 'slow';

/** An ApiClient whose link to the cluster a test can cut, per elector. */
export interface CuttableApi {
  readonly api: ApiClient;
  link: Link;
  /** How long a `slow` link holds each response. Default 0. */
  slowMs: number;
}

/** Wraps `api` so `link` decides whether get/create/update reach it. */
export function cuttableApi(api: ApiClient): CuttableApi {
  const state: CuttableApi = {
    link: 'up',
    slowMs: 0,
    api: {
      ...api,
      get: (async (...args: Parameters<ApiClient['get']>) => {
        await gate(args[1]?.signal);
        return slow(api.get(...args), args[1]?.signal);
      }) as ApiClient['get'],
      create: (async (...args: Parameters<ApiClient['create']>) => {
        await gate(args[2]?.signal);
        return slow(api.create(...args), args[2]?.signal);
      }) as ApiClient['create'],
      update: (async (...args: Parameters<ApiClient['update']>) => {
        await gate(args[2]?.signal);
        return slow(api.update(...args), args[2]?.signal);
      }) as ApiClient['update'],
    },
  };
  const gate = (signal: AbortSignal | undefined): Promise<void> => {
    if (state.link === 'up' || state.link === 'slow') return Promise.resolve();
    if (state.link === 'failing') return Promise.reject(new Error('connect ECONNREFUSED (test link cut)'));
    return new Promise<void>((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };
  const slow = <T>(response: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
    if (state.link !== 'slow') return response;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        response.then(resolve, reject);
      }, state.slowMs);
      const onAbort = (): void => {
        clearTimeout(timer);
        response.catch(() => {});
        reject(signal?.reason);
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  return state;
}

/** One stretch of time during which an elector led, by the time source `now`. */
interface Interval {
  readonly who: string;
  readonly start: number;
  end: number | undefined;
}

/**
 * Records leading intervals: `onStartedLeading` opens one, the abort of its signal closes it.
 * Returns the callbacks to pass to the elector and the intervals.
 */
export function intervalRecorder(now: () => number) {
  const intervals: Interval[] = [];
  return {
    intervals,
    callbacks(who: string) {
      return {
        onStartedLeading: (signal: AbortSignal) => {
          const interval: Interval = { who, start: now(), end: undefined };
          intervals.push(interval);
          signal.addEventListener('abort', () => {
            interval.end = now();
          });
        },
      };
    },
    /** Leaders right now. */
    current(): string[] {
      return intervals.filter((i) => i.end === undefined).map((i) => i.who);
    },
    /** Throws when two intervals overlap (an interval still open counts until `now()`). */
    assertNoOverlap(): void {
      const sorted = [...intervals].sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i++) {
        const prev = sorted[i - 1]!;
        const cur = sorted[i]!;
        const prevEnd = prev.end ?? now();
        if (cur.start < prevEnd) {
          throw new Error(
            `two leaders at once: ${prev.who} led [${prev.start}, ${prev.end ?? 'now'}] and ${cur.who} started at ${cur.start}`,
          );
        }
      }
    },
  };
}

/** The electors that currently claim leadership. */
export function leaders(electors: readonly LeaderElector[]): string[] {
  return electors.filter((e) => e.isLeader()).map((e) => e.identity);
}
