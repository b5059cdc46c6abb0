import type { KubeClient } from '@kubeloom/kube';
import type { Clock } from '../clock.ts';
import { type LeaseJson, LeaseResource } from './lease.ts';

/** When this process first saw the current version of one Lease, by a watch. */
export interface LeaseWatch {
  /**
   * When the watch first delivered `resourceVersion`, on the clock given; `undefined` for any
   * other version (the elector then counts from its own read). A leader elector's `observedSince`.
   */
  observedSince(resourceVersion: string): number | undefined;
  /** Runs the watch (unless the KubeClient already runs it) until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/** Options of {@link watchLease}. */
export interface LeaseWatchOptions {
  readonly kube: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly clock: Clock;
}

/**
 * Watches one Lease for a leader-election candidate, which otherwise reads the record once per
 * retry period and so learns of the holder's last renewal up to a retry period late: with the
 * watch's first sighting as `observedSince`, a dead holder's Lease is taken over one lease
 * duration after that renewal as the watch saw it. As safe as the candidate's own read: the record
 * stood unchanged at least since the watch delivered it.
 */
export function watchLease(opts: LeaseWatchOptions): LeaseWatch {
  const informer = opts.kube.informer(LeaseResource, {
    namespace: opts.namespace,
    fieldSelector: `metadata.name=${opts.name}`,
  });
  let seenRv: string | undefined;
  let seenAt = 0;
  const observe = (lease: LeaseJson): void => {
    const rv = lease.metadata?.resourceVersion;
    if (rv === undefined || rv === seenRv) return;
    seenRv = rv;
    seenAt = opts.clock.now();
  };
  informer.addEventHandler({ onAdd: observe, onUpdate: (_old, lease) => observe(lease) });
  return {
    observedSince: (rv) => (rv === seenRv ? seenAt : undefined),
    run: (signal) => informer.run(signal),
  };
}
