import type { ApiClient, SelectorOptions } from '../api.ts';
import { isGone } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceDescriptor } from '../resource.ts';

/** Options of {@link listAll}. */
export interface ListAllOptions<U> extends SelectorOptions {
  /** Objects per page (`limit`). */
  readonly pageSize: number;
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
 */
export async function listAll<U>(
  api: ApiClient,
  resource: ResourceDescriptor,
  options: ListAllOptions<U>,
): Promise<ListResult<U>> {
  const { namespace, labelSelector, fieldSelector, signal, mapItem } = options;
  const items: U[] = [];
  let cont: string | undefined;
  for (;;) {
    let page: Awaited<ReturnType<ApiClient['list']>>;
    try {
      page = await api.list(resource, {
        namespace,
        labelSelector,
        fieldSelector,
        limit: options.pageSize,
        continue: cont,
        signal,
      });
    } catch (err) {
      if (cont === undefined || !isGone(err)) throw err;
      options.onExpiredContinue(err);
      const full = await api.list(resource, { namespace, labelSelector, fieldSelector, signal });
      return { items: full.items.map(mapItem), resourceVersion: full.metadata.resourceVersion };
    }
    for (const item of page.items) items.push(mapItem(item));
    cont = page.metadata.continue || undefined;
    if (!cont) return { items, resourceVersion: page.metadata.resourceVersion };
  }
}
