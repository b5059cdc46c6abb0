import type { ApiClient, SelectorOptions } from '../api.ts';
import { isGone } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceDescriptor } from '../resource.ts';

/** Options of {@link listAll}. */
export interface ListAllOptions extends SelectorOptions {
  /** Objects per page (`limit`). */
  readonly pageSize: number;
  /** Cancels the list. */
  readonly signal: AbortSignal;
  /** Called when a continue token expired and the list falls back to one unpaginated request. */
  readonly onExpiredContinue: (err: unknown) => void;
}

/** A complete, consistent list. */
export interface ListResult {
  /** Every object, in the order the server sent them. */
  readonly items: KubeObject[];
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
export async function listAll(
  api: ApiClient,
  resource: ResourceDescriptor,
  options: ListAllOptions,
): Promise<ListResult> {
  const { namespace, labelSelector, fieldSelector, signal } = options;
  const items: KubeObject[] = [];
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
      return { items: full.items, resourceVersion: full.metadata.resourceVersion };
    }
    for (const item of page.items) items.push(item);
    cont = page.metadata.continue || undefined;
    if (!cont) return { items, resourceVersion: page.metadata.resourceVersion };
  }
}
