import type { KubeObject } from '@kubeloom/kube';
import { ClientTestError } from '../testing/client-test-error.ts';

/**
 * `Kind ns/name` for messages. The kind is the object's own, else `kind` (the resource's), else
 * `object`.
 */
export function describeObject(obj: KubeObject | undefined, kind?: string, fallback = '?'): string {
  const ns = obj?.metadata?.namespace;
  const name = obj?.metadata?.name ?? obj?.metadata?.generateName ?? fallback;
  return `${obj?.kind || kind || 'object'} ${ns ? `${ns}/` : ''}${name}`;
}

/** `Kind ns/name` from a name and a namespace. */
export function describeName(kind: string | undefined, name: string, namespace?: string): string {
  return `${kind || 'object'} ${namespace ? `${namespace}/` : ''}${name}`;
}

/** Runs `fn`; turns a failure into a {@link ClientTestError} naming `what`. */
export async function must<R>(what: string, fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    throw new ClientTestError(
      `clienttest: ${what} failed: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  }
}
