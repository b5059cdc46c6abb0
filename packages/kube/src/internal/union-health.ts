import type { InformerHealth, InformerState, SharedInformer } from '../informer.ts';
import type { InformerCounts } from './informer-counters.ts';

/** What {@link unionHealth} aggregates. */
export interface UnionHealthParts {
  /** The members' informers (leaving ones included). */
  readonly members: readonly SharedInformer[];
  /** The union's own state. */
  readonly started: boolean;
  readonly stopped: boolean;
  readonly synced: boolean;
  /** The union's own counters (its handlers' failures). */
  readonly own: InformerCounts;
  /** The union store's index failures. */
  readonly indexErrors: number;
  /** Objects in the union. */
  readonly objects: number;
}

/** Member states from the most pressing to the least. */
const STATE_ORDER: readonly InformerState[] = ['backoff', 'stopped', 'listing', 'idle', 'watching'];

const COUNTERS = [
  'restarts',
  'lists',
  'relists',
  'listAttempts',
  'errors',
  'malformedLines',
  'unknownEvents',
  'handlerErrors',
  'indexErrors',
  'idleTimeouts',
  'rejectedObjects',
] as const;

function latest(dates: ReadonlyArray<Date | undefined>): Date | undefined {
  let out: Date | undefined;
  for (const d of dates) if (d !== undefined && (out === undefined || d > out)) out = d;
  return out;
}

/** A union informer's health (the rules are on `UnionInformer.health`). */
export function unionHealth(parts: UnionHealthParts): InformerHealth {
  const healths = parts.members.map((m) => m.health());
  let state: InformerState;
  if (parts.stopped) state = 'stopped';
  else if (healths.length === 0) state = parts.started ? 'watching' : 'idle';
  else state = STATE_ORDER.find((s) => healths.some((h) => h.state === s)) ?? 'watching';
  const sums = Object.fromEntries(COUNTERS.map((c) => [c, healths.reduce((n, h) => n + h[c], 0)])) as Record<
    (typeof COUNTERS)[number],
    number
  >;
  return {
    ...sums,
    state,
    synced: parts.synced,
    resourceVersion: healths.length === 1 ? healths[0]!.resourceVersion : undefined,
    lastEventTime: latest(healths.map((h) => h.lastEventTime)),
    lastListTime: latest(healths.map((h) => h.lastListTime)),
    errors: sums.errors + parts.own.errors,
    handlerErrors: sums.handlerErrors + parts.own.handlerErrors,
    indexErrors: sums.indexErrors + parts.indexErrors,
    lastError: parts.own.lastError ?? healths.find((h) => h.lastError !== undefined)?.lastError,
    objects: parts.objects,
  };
}
