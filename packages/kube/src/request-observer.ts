/**
 * Observing every request a client sends — the hook behind client-go's `rest_client_*` metrics.
 * `createKubeClient({ requestObserver })` wraps the transport so each verb reports its outcome.
 *
 * @module
 */

import type { ApiClient } from './api.ts';
import { ApiError } from './errors.ts';
import { type FrozenWatch, frozenWatchOf, WATCH_FROZEN } from './internal/frozen-watch.ts';
import { type SinkWatch, sinkWatchOf, WATCH_SINK } from './internal/watch-sink.ts';
import type { ResourceDescriptor } from './resource.ts';

/** One finished request (for a watch: once the stream is established or failed). */
export interface ObservedRequest {
  /** The client verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` or `request`. */
  readonly verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'request';
  /** The HTTP method, e.g. `GET`, `PATCH`. */
  readonly method: string;
  /** `<plural>.<group>` (or `<plural>` for the core group); `''` for raw requests. */
  readonly resource: string;
  /**
   * The HTTP status: a failure's own code; for a success the code the apiserver answers that verb
   * with (201 for `create`, 200 otherwise, as the transport does not report it); `0` when no
   * response arrived (connection failure, abort).
   */
  readonly code: number;
  /** From sending to the response (for a watch, to its first event or end), in seconds. */
  readonly durationSeconds: number;
}

/** Receives every {@link ObservedRequest}; must not throw (errors are ignored). */
export type RequestObserver = (request: ObservedRequest) => void;

const METHODS = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
} as const;

function resourceName(r: ResourceDescriptor | undefined): string {
  if (!r) return '';
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

function codeOf(err: unknown): number {
  return err instanceof ApiError ? err.code : 0;
}

/**
 * `api` with every request reported to `observer`. The wrapper adds no behaviour: results, errors
 * and cancellation pass through unchanged.
 */
export function observedApiClient(api: ApiClient, observer: RequestObserver): ApiClient {
  const report = (r: Omit<ObservedRequest, 'durationSeconds'>, start: bigint): void => {
    try {
      observer({ ...r, durationSeconds: Number(process.hrtime.bigint() - start) / 1e9 });
    } catch {
      // an observer's failure must not fail the request
    }
  };
  const timed = async <T>(
    verb: keyof typeof METHODS,
    resource: ResourceDescriptor | undefined,
    call: () => Promise<T>,
  ): Promise<T> => {
    const start = process.hrtime.bigint();
    const base = { verb, method: METHODS[verb], resource: resourceName(resource) };
    try {
      const result = await call();
      report({ ...base, code: verb === 'create' ? 201 : 200 }, start);
      return result;
    } catch (err) {
      report({ ...base, code: codeOf(err) }, start);
      throw err;
    }
  };
  return {
    get: (ref, opts) => timed('get', ref.resource, () => api.get(ref, opts)),
    list: (resource, opts) => timed('list', resource, () => api.list(resource, opts)),
    create: (resource, obj, opts) => timed('create', resource, () => api.create(resource, obj, opts)),
    update: (resource, obj, opts) => timed('update', resource, () => api.update(resource, obj, opts)),
    patch: (ref, data, opts) => timed('patch', ref.resource, () => api.patch(ref, data, opts)),
    delete: (ref, opts) => timed('delete', ref.resource, () => api.delete(ref, opts)),
    watch: (resource, opts) => observedWatch(api.watch(resource, opts), resourceName(resource), report),
    ...pushWatch(api, report),
    ...frozenWatch(api, report),
    async request(req) {
      const start = process.hrtime.bigint();
      const base = { verb: 'request' as const, method: req.method ?? 'GET', resource: '' };
      try {
        const result = await api.request(req);
        report({ ...base, code: 200 }, start);
        return result as never;
      } catch (err) {
        report({ ...base, code: codeOf(err) }, start);
        throw err;
      }
    },
    close: () => api.close(),
    [Symbol.asyncDispose]: () => api[Symbol.asyncDispose](),
  };
}

type Report = (r: Omit<ObservedRequest, 'durationSeconds'>, start: bigint) => void;

/** The inner client's push watch (see {@link WATCH_SINK}), observed, if it has one. */
function pushWatch(api: ApiClient, report: Report): { [WATCH_SINK]?: SinkWatch } {
  const inner = sinkWatchOf(api);
  if (!inner) return {};
  const observed: SinkWatch = async (resource, opts, sink) => {
    const start = process.hrtime.bigint();
    const base = { verb: 'watch' as const, method: 'GET', resource: resourceName(resource) };
    let reported = false;
    const once = (code: number): void => {
      if (reported) return;
      reported = true;
      report({ ...base, code }, start);
    };
    try {
      await inner(resource, opts, (event) => {
        once(200);
        return sink(event);
      });
      once(200);
    } catch (err) {
      once(codeOf(err));
      throw err;
    }
  };
  return { [WATCH_SINK]: observed };
}

/** The inner client's frozen watch (see {@link WATCH_FROZEN}), observed, if it has one. */
function frozenWatch(api: ApiClient, report: Report): { [WATCH_FROZEN]?: FrozenWatch } {
  const frozen = frozenWatchOf(api);
  if (!frozen) return {};
  return {
    [WATCH_FROZEN]: ((resource, opts) =>
      observedWatch(frozen(resource, opts), resourceName(resource), report)) as FrozenWatch,
  };
}

/** A watch stream reported once: when its first item (or its end or failure) arrives. */
function observedWatch<E>(inner: AsyncIterable<E>, resource: string, report: Report): AsyncIterable<E> {
  return {
    [Symbol.asyncIterator]() {
      const it = inner[Symbol.asyncIterator]();
      const start = process.hrtime.bigint();
      const base = { verb: 'watch' as const, method: 'GET', resource };
      let reported = false;
      const once = (code: number) => {
        if (reported) return;
        reported = true;
        report({ ...base, code }, start);
      };
      return {
        async next() {
          try {
            const r = await it.next();
            once(200);
            return r;
          } catch (err) {
            once(codeOf(err));
            throw err;
          }
        },
        async return(value?: unknown) {
          once(200);
          return (await it.return?.(value)) ?? { done: true as const, value: undefined };
        },
      };
    },
  };
}
