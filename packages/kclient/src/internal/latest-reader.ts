import type { KubeObject } from '@kubeloom/kube';

/**
 * An uncached read of one object straight from the API server. Every kclient writer implements
 * it (it is not part of the public `Writer` contract), so helpers such as `createOrUpdate` can
 * read the current `resourceVersion` before a conditional update.
 */
export interface LatestReader<T extends KubeObject> {
  /** The object as the API server has it now, or `undefined` when it does not exist. */
  readLatest(name: string, namespace: string | undefined, signal?: AbortSignal): Promise<T | undefined>;
}

/** True when `x` implements {@link LatestReader}. */
export function isLatestReader<T extends KubeObject>(x: unknown): x is LatestReader<T> {
  return (
    typeof x === 'object' && x !== null && typeof (x as Partial<LatestReader<T>>).readLatest === 'function'
  );
}
