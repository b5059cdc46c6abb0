import type { ListOptions } from '../api.ts';

/**
 * The key of an internal list option: a callback given the page's `continue` token as soon as the
 * response shows it, before the page is decoded: from the start of the body when the list metadata
 * comes first (built-in resources), else from the end of the body once it has arrived (custom
 * resources: the apiserver encodes their lists with sorted keys, `metadata` after `items`). The
 * paginated list uses it to request the next page at once, so the apiserver reads and encodes page
 * N+1 while this process decodes page N. Transports without it (the fake, wrappers that rebuild the options)
 * simply never call it, and the list reads its pages one after another.
 */
export const ON_CONTINUE: unique symbol = Symbol('kubeloom.onContinue');

/**
 * The key of an internal list option: a callback given the length of a page's body (characters of
 * JSON) once it has arrived, before it is decoded. The paginated list uses it to size later pages
 * by bytes rather than by objects. Transports without it never call it; the pages then keep their
 * first size.
 */
export const ON_PAGE_LENGTH: unique symbol = Symbol('kubeloom.onPageLength');

/** {@link ListOptions} with the internal {@link ON_CONTINUE} and {@link ON_PAGE_LENGTH} callbacks. */
export type ListOptionsWithPageHints = ListOptions & {
  readonly [ON_CONTINUE]?: ((token: string) => void) | undefined;
  readonly [ON_PAGE_LENGTH]?: ((length: number) => void) | undefined;
};

/** How many bytes of a list response are looked at for the token before giving up. */
export const CONTINUE_PEEK_LIMIT = 16 * 1024;

const ITEMS = '"items":';

/**
 * The `continue` token of a list page, read from the start of its JSON body. The apiserver writes
 * `kind`, `apiVersion` and `metadata` before `items`, so the list metadata is complete before the
 * first item. Returns:
 * - a token string when the metadata before `"items":` has a non-empty `continue`;
 * - `null` when that metadata is complete and has no token (the last page), or when the body is
 *   not laid out that way (the caller then reads the token from the whole page, as usual);
 * - `undefined` when `head` ends before `"items":` (more bytes are needed).
 */
export function continueFromHead(head: string): string | null | undefined {
  const at = head.indexOf(ITEMS);
  if (at < 0) return head.length >= CONTINUE_PEEK_LIMIT ? null : undefined;
  // `{"kind":…,"apiVersion":…,"metadata":{…},` + `"items":` → close the object after the metadata.
  const before = head.slice(0, at).trimEnd();
  if (!before.endsWith(',')) return null;
  let meta: unknown;
  try {
    meta = (JSON.parse(`${before.slice(0, -1)}}`) as { metadata?: unknown }).metadata;
  } catch {
    return null;
  }
  if (!meta || typeof meta !== 'object') return null;
  const token = (meta as { continue?: unknown }).continue;
  return typeof token === 'string' && token !== '' ? token : null;
}

const METADATA = '"metadata":';

/**
 * The `continue` token of a whole list page whose metadata is its last member (`…],"kind":"XList",
 * "metadata":{…}}`, the apiserver's encoding of custom resource lists), without decoding the page:
 * a token string, or `null` when the body does not end with the list metadata or it has no token.
 */
export function continueFromTail(body: string): string | null {
  const at = body.lastIndexOf(METADATA);
  if (at < 0) return null;
  let meta: unknown;
  try {
    // Only the list's own metadata is followed by nothing but the list's closing brace.
    meta = (JSON.parse(`{${body.slice(at)}`) as { metadata?: unknown }).metadata;
  } catch {
    return null;
  }
  if (!meta || typeof meta !== 'object') return null;
  const token = (meta as { continue?: unknown }).continue;
  return typeof token === 'string' && token !== '' ? token : null;
}

/** Looks at a response body before it is decoded (see {@link ON_CONTINUE}). */
export interface BodyPeek {
  /**
   * Given the start of the body as it arrives (growing, up to {@link CONTINUE_PEEK_LIMIT} bytes)
   * until it returns true. Absent: the head is not looked at (no text is decoded early).
   */
  readonly head?: ((head: string) => boolean) | undefined;
  /** Given the whole body, before it is decoded. */
  readonly whole: (body: string) => void;
}

/** What {@link pagePeek} reports. */
export interface PageHints {
  /** Given the page's continue token once, from its head or else from its end. */
  readonly onContinue?: ((token: string) => void) | undefined;
  /** Given the whole body's length, in characters. */
  readonly onLength?: ((length: number) => void) | undefined;
}

/** Reports a list page's continue token (from its head, or else from its end, once) and its length. */
export function pagePeek(hints: PageHints): BodyPeek {
  const { onContinue, onLength } = hints;
  let reported = onContinue === undefined;
  const report = (token: string | null | undefined): void => {
    if (typeof token !== 'string' || reported) return;
    reported = true;
    onContinue?.(token);
  };
  return {
    head:
      onContinue === undefined
        ? undefined
        : (head) => {
            if (reported) return true;
            const token = continueFromHead(head);
            report(token);
            return token !== undefined;
          },
    whole: (body) => {
      onLength?.(body.length);
      if (!reported) report(continueFromTail(body));
    },
  };
}
