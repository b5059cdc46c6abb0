import type { Event } from './core.ts';

/**
 * The newest object of an event: `new`, else `old`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#latest}
 */
export function latest<T>(e: Event<T>): T {
  return (e.new ?? e.old)!;
}

/**
 * The objects of an event: `old` and `new`, whichever are set.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#items}
 */
export function items<T>(e: Event<T>): T[] {
  const out: T[] = [];
  if (e.old !== undefined) out.push(e.old);
  if (e.new !== undefined) out.push(e.new);
  return out;
}
