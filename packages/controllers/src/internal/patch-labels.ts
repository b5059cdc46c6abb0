import {
  type ApiClient,
  isConflict,
  isNotFound,
  type KubeObject,
  type Logger,
  type ResourceDescriptor,
} from '@kubeloom/kube';

/** How the sharder writes labels. */
export interface LabelPatchOptions {
  readonly api: ApiClient;
  readonly fieldManager: string;
  /** Every write and every write not applied is logged at debug (a post-mortem's history of moves). */
  readonly logger: Logger;
}

/** One object's label change: `null` removes a label. */
export interface LabelPatch {
  readonly resource: ResourceDescriptor;
  /** The object as the cache holds it: its resourceVersion conditions the write. */
  readonly obj: KubeObject;
  readonly labels: Record<string, string | null>;
}

/**
 * Merge-patches an object's labels (`null` removes one) under the resourceVersion the decision
 * was made on; false when nothing was written: no `signal` or aborted, or the object changed or
 * went away since the cache saw it (its event enqueues it again). Other errors are thrown.
 */
export async function patchLabels(
  opts: LabelPatchOptions,
  { resource, obj, labels }: LabelPatch,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (!signal || signal.aborted) return false;
  const { name = '', namespace } = obj.metadata ?? {};
  const object = `${resource.plural}/${namespace ? `${namespace}/` : ''}${name}`;
  try {
    await opts.api.patch(
      { resource, name, namespace },
      { metadata: { resourceVersion: obj.metadata?.resourceVersion, labels } },
      { type: 'merge', fieldManager: opts.fieldManager, signal },
    );
    opts.logger.debug('labels written', { object, labels });
    return true;
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err) && !signal.aborted) throw err;
    const reason = signal.aborted ? 'term or move ended' : isConflict(err) ? 'conflict' : 'not found';
    opts.logger.debug('labels not written', { object, labels, reason });
    return false;
  }
}
