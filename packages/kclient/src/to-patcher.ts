import type { KubeObject } from '@kubeloom/kube';
import type { ApplyConfiguration, Patcher, Writer } from './interfaces.ts';

/**
 * A type-erased {@link Patcher} over a writer (Istio's `kclient.ToPatcher`): code that only
 * patches, e.g. a status writer shared by several kinds, can hold one `Patcher` per kind without
 * their object types.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#toPatcher}
 */
export function toPatcher<T extends KubeObject>(writer: Writer<T>): Patcher {
  return {
    patch: async (ref, data, opts) => {
      await writer.patch(ref, data, opts);
    },
    patchStatus: async (ref, data, opts) => {
      await writer.patchStatus(ref, data, opts);
    },
    applyStatus: async ({ name, namespace }, config, opts) => {
      const metadata = (config.metadata ?? {}) as Record<string, unknown>;
      const full = { ...config, metadata: { ...metadata, name, namespace } } as ApplyConfiguration<T>;
      await writer.applyStatus(full, opts);
    },
  };
}
