import type { ResourceDescriptor } from '@kubeloom/kube';
import { ApiWriter } from './api-writer.ts';

/**
 * The resource a writer writes, when it can be known: an explicit descriptor, the client's
 * `resource`, or what a kclient writer resolved.
 */
export function resourceOfWriter(writer: unknown): ResourceDescriptor | undefined {
  if (writer instanceof ApiWriter) {
    const known = writer.knownResource();
    if (known?.kind) return known;
  }
  const r = (writer as { resource?: ResourceDescriptor } | undefined)?.resource;
  return r && typeof r === 'object' && r.kind ? r : undefined;
}
