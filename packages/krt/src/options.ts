import type { Logger } from '@kubeloom/kube';
import type { Metadata } from './core.ts';
import type { DebugHandler } from './debug.ts';

/**
 * Options every collection takes. `signal` is mandatory: aborting it unregisters every handler
 * the collection registered on others, drops its own handlers and unregisters it from the debug
 * handler, so dynamically created collections never leak.
 */
export interface CollectionOptions {
  /** Stops the collection. Required: a collection without one is an error. */
  readonly signal: AbortSignal;
  /** The name, for logs and the debug dump. Naming every collection makes debugging easier. */
  readonly name?: string | undefined;
  /** Registers the collection in this debug handler (see {@link DebugHandler}). */
  readonly debug?: DebugHandler | undefined;
  /** Where transformation and handler errors are logged. Default `consoleLogger('warn')`. */
  readonly logger?: Logger | undefined;
  /** Log every output event at `debug` level. */
  readonly debugLogging?: boolean | undefined;
  /** Free-form metadata, returned by `metadata()`. */
  readonly metadata?: Metadata | undefined;
  /**
   * Wraps objects of this collection when a {@link fetch} filters them, to supply labels, a label
   * selector or a `resourceName()` without changing the objects (fetch still returns the
   * originals). It is not used for keys or change detection.
   */
  readonly augment?: ((obj: unknown) => unknown) | undefined;
}

/**
 * Builds options with a shared signal, debug handler, logger and name prefix, so a controller's
 * collections are named `prefix/name` and stop together.
 */
export interface OptionsBuilder {
  /** Options with this name (prefixed) and any extra options. */
  named(name: string, extra?: Partial<Omit<CollectionOptions, 'name'>>): CollectionOptions;
  /** The shared signal. */
  readonly signal: AbortSignal;
  /** The shared debug handler, if any. */
  readonly debug: DebugHandler | undefined;
}

/**
 * Creates an {@link OptionsBuilder}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#optionsBuilder}
 */
export function optionsBuilder(base: {
  readonly signal: AbortSignal;
  readonly prefix?: string;
  readonly debug?: DebugHandler;
  readonly logger?: Logger;
}): OptionsBuilder {
  return {
    signal: base.signal,
    debug: base.debug,
    named(name, extra) {
      return {
        signal: base.signal,
        debug: base.debug,
        logger: base.logger,
        ...extra,
        name: base.prefix ? `${base.prefix}/${name}` : name,
      };
    },
  };
}
