import type { KubeObject } from '@kubeloom/kube';

/**
 * The set of `metadata.name`s of `objects` (Istio's `clienttest.Names`): compare lists without
 * caring about order, e.g. `expect(names(client.list(ns))).toEqual(new Set(['a', 'b']))`.
 */
export function names(objects: Iterable<KubeObject>): Set<string> {
  const out = new Set<string>();
  for (const o of objects) out.add(o.metadata?.name ?? '');
  return out;
}
