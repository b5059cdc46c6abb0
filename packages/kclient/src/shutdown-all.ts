import type { HandlerRegistration } from '@kubeloom/kube';

/** Anything whose handlers can be shut down at once: every kclient client (`Informer`). */
export interface HandlerShutdowner {
  /** Removes every handler registered through it. */
  shutdownHandlers(): void;
}

/**
 * Removes handlers in bulk (Istio's `controllers.ShutdownAll`): calls `shutdownHandlers()` on
 * each client and `remove()` on each handler registration; `undefined` entries are skipped. Call
 * it when a controller stops (e.g. loses leadership) while the informers live on.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#shutdownAll}
 */
export function shutdownAll(
  ...items: ReadonlyArray<HandlerShutdowner | HandlerRegistration | undefined>
): void {
  for (const item of items) {
    if (item === undefined) continue;
    if ('shutdownHandlers' in item && typeof item.shutdownHandlers === 'function') item.shutdownHandlers();
    else (item as HandlerRegistration).remove();
  }
}
