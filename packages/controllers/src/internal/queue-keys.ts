import type { ObjectKey } from '@kubeloom/kube';
import { describeValue } from './describe.ts';

/**
 * The key function of a queue without `keyFunc`: a string is its own key, a `{ namespace, name }`
 * object becomes `namespace/name` (or `name`); anything else throws a TypeError naming `queue`.
 */
export function defaultKeyFunc(queue: string): (key: unknown) => string {
  return (key) => {
    if (typeof key === 'string') return key;
    if (key !== null && typeof key === 'object' && typeof (key as ObjectKey).name === 'string') {
      const { namespace, name } = key as ObjectKey;
      if (name === '') {
        throw new TypeError(`queue "${queue}": key ${describeValue(key)} has an empty name`);
      }
      return namespace ? `${namespace}/${name}` : name;
    }
    throw new TypeError(
      `queue "${queue}": cannot derive a key from ${describeValue(key)}; keys are strings or ` +
        '{namespace, name} objects by default, pass keyFunc in the queue options for other key types',
    );
  };
}

/** A key as logged: cut to 200 characters. */
export function logKey(key: string): string {
  return key.length > 200 ? `${key.slice(0, 200)}…` : key;
}
