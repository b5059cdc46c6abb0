import type { ApiClient, ObjectList, SelectorOptions } from '../api.ts';
import { isGone } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceDescriptor } from '../resource.ts';
import { ResponseTooLargeError } from '../response-too-large.ts';
import { type ListOptionsWithPageHints, ON_CONTINUE, ON_PAGE_LENGTH } from './list-continue.ts';

/** The most objects a page sized by {@link ListAllOptions.pageBytes} asks for: 10 of client-go's pages. */
export const MAX_PAGE_SIZE = 5_000;

/**
 * How much a page sized by bytes may grow over the page requested before it: objects next to each
 * other are not always alike (small ConfigMaps, then dashboards), so one page of small objects
 * must not size the next one for thousands.
 */
export const MAX_PAGE_GROWTH = 4;

/** Options of {@link listAll}. */
export interface ListAllOptions<U> extends SelectorOptions {
  /** Objects per page (`limit`); with {@link pageBytes}, of the pages before one was read whole. */
  readonly pageSize: number;
  /**
   * When set, a page requested after another was read whole asks for as many objects as fit in
   * this many characters of JSON, going by that page's size per object, on transports that report
   * a page's length (the HTTPS client does): at least 1, at most {@link MAX_PAGE_SIZE} and
   * {@link MAX_PAGE_GROWTH} times the page requested before it. Small objects then come in fewer,
   * larger pages, and large ones in pages that stay near this size.
   */
  readonly pageBytes?: number | undefined;
  /** Cancels the list. */
  readonly signal: AbortSignal;
  /** Called when a continue token expired and the list falls back to one unpaginated request. */
  readonly onExpiredContinue: (err: unknown) => void;
  /**
   * Maps each item as its page arrives (the informer transforms and freezes it there), so what
   * the mapping drops (managedFields) is garbage at once instead of being held until the last page.
   */
  readonly mapItem: (item: KubeObject) => U;
}

/** A complete, consistent list. */
export interface ListResult<U> {
  /** Every object, mapped, in the order the server sent them. */
  readonly items: U[];
  /** The resourceVersion the list is consistent at (a watch resumes from it). */
  readonly resourceVersion: string | undefined;
}

/**
 * Lists every object of a resource, page by page (`limit` + `continue`), like client-go's
 * `tools/pager` with `FullListIfExpired`: when a continue token has expired (410: etcd compacted
 * the revision the first page was read at, which happens when paging is slower than the
 * compaction interval), the pages read so far are dropped and the whole list is read again in one
 * unpaginated request. Restarting the paginated list instead could expire again, every time.
 *
 * Any other failure (and a failure of the fallback) is thrown; the caller retries with backoff.
 *
 * Pages are read one ahead: when the transport reports a page's continue token from the start of
 * its body ({@link ON_CONTINUE}; the HTTPS client does), the next page is requested while this one
 * is still arriving and being decoded, so the apiserver's work on page N+1 overlaps this process's
 * work on page N. At most two pages are in flight; the token of the whole page is checked against
 * the one seen early, and a page requested ahead and not needed is cancelled.
 *
 * With `pageBytes`, pages are sized by bytes rather than by objects (see
 * {@link ListAllOptions.pageBytes}); the apiserver does not check a request's `limit` against its
 * continue token, so each request may ask for a different one.
 *
 * A page too large to decode ({@link ResponseTooLargeError}) is asked for again with half as many
 * objects, and no later page asks for more, down to one object per page.
 */
export async function listAll<U>(
  api: ApiClient,
  resource: ResourceDescriptor,
  options: ListAllOptions<U>,
): Promise<ListResult<U>> {
  const { namespace, labelSelector, fieldSelector, signal, mapItem, pageBytes } = options;
  const items: U[] = [];
  // Characters of JSON per object in the last page read whole, when sizing pages by bytes.
  let perObject: number | undefined;
  // The limit of the last page requested, and the most any page may ask for (lowered when a page
  // was too large to decode).
  let last = options.pageSize;
  let ceiling = Number.POSITIVE_INFINITY;
  const limit = (): number => {
    const want =
      pageBytes === undefined || perObject === undefined
        ? options.pageSize
        : Math.min(MAX_PAGE_SIZE, last * MAX_PAGE_GROWTH, Math.max(1, Math.floor(pageBytes / perObject)));
    last = Math.min(ceiling, want);
    return last;
  };
  // At most two requests are in flight: the page being read and the one after it, requested as
  // soon as the head of the page being read showed its continue token.
  let current: Prefetch;
  const readAhead = (p: Prefetch): void => {
    if (p === current && p.seen !== undefined && p.ahead === undefined && !signal.aborted)
      p.ahead = request(p.seen);
  };
  const request = (cont: string | undefined): Prefetch => {
    const abort = new AbortController();
    const prefetch: Prefetch = {
      token: cont,
      limit: limit(),
      abort,
      page: undefined as never,
      seen: undefined,
      ahead: undefined,
      length: undefined,
    };
    const opts: ListOptionsWithPageHints = {
      namespace,
      labelSelector,
      fieldSelector,
      limit: prefetch.limit,
      continue: cont,
      signal: AbortSignal.any([signal, abort.signal]),
      [ON_CONTINUE]: (token) => {
        prefetch.seen = token;
        readAhead(prefetch);
      },
      [ON_PAGE_LENGTH]:
        pageBytes === undefined
          ? undefined
          : (length) => {
              prefetch.length = length;
            },
    };
    prefetch.page = api.list(resource, opts);
    // Settled by the loop below or abandoned (aborted); never an unhandled rejection.
    prefetch.page.catch(() => {});
    return prefetch;
  };
  current = request(undefined);
  try {
    for (;;) {
      let page: ObjectList;
      try {
        page = await current.page;
      } catch (err) {
        if (err instanceof ResponseTooLargeError && current.limit > 1) {
          current.ahead?.abort.abort();
          ceiling = Math.max(1, Math.floor(current.limit / 2));
          current = request(current.token);
          continue;
        }
        if (current.token === undefined || !isGone(err)) throw err;
        current.ahead?.abort.abort();
        options.onExpiredContinue(err);
        const full = await api.list(resource, { namespace, labelSelector, fieldSelector, signal });
        return { items: full.items.map(mapItem), resourceVersion: full.metadata.resourceVersion };
      }
      if (current.length !== undefined && page.items.length > 0)
        perObject = current.length / page.items.length;
      for (const item of page.items) items.push(mapItem(item));
      const cont = page.metadata.continue || undefined;
      let next = current.ahead;
      if (next && next.token !== cont) {
        // The head said otherwise than the whole page (a key given twice?): trust the whole page.
        next.abort.abort();
        next = undefined;
      }
      if (!cont) return { items, resourceVersion: page.metadata.resourceVersion };
      current = next ?? request(cont);
      readAhead(current);
    }
  } finally {
    // On any exit, a page requested ahead and not read is cancelled (its socket goes back or closes).
    current.ahead?.abort.abort();
  }
}

/** One page's request, and the request of the page after it once its continue token was seen. */
interface Prefetch {
  /** The continue token this page was requested with (undefined: the first page). */
  readonly token: string | undefined;
  /** The page's `limit`. */
  readonly limit: number;
  readonly abort: AbortController;
  page: Promise<ObjectList>;
  /** The continue token seen in this page's head, before the page was read whole. */
  seen: string | undefined;
  /** The next page's request, when made ahead. */
  ahead: Prefetch | undefined;
  /** The length of this page's body, once it arrived (when sizing pages by bytes). */
  length: number | undefined;
}
