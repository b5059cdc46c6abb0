import type { KubeObject } from '@kubeloom/kube';
import { ClientTestError } from '../testing/client-test-error.ts';

/** `Kind ns/name` for messages. */
export function describeObject(obj: KubeObject | undefined, fallback = '?'): string {
  const ns = obj?.metadata?.namespace;
  const name = obj?.metadata?.name ?? obj?.metadata?.generateName ?? fallback;
  return `${obj?.kind ?? 'object'} ${ns ? `${ns}/` : ''}${name}`;
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
