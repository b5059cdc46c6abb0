/** Strings shorter than this are left alone: V8's `JSON.parse` already shares (internalizes) them. */
const MIN_LENGTH = 10;
/**
 * Longer strings are left alone: they are seldom repeated (certificates, scripts, blobs), and a
 * lookup hashes and compares the whole string (measured: ~1.4 µs for 1,000 characters, more than
 * the rest of a ConfigMap's freeze and share together).
 */
const MAX_LENGTH = 256;
/**
 * Entries per generation: the pool holds at most two generations. Small, because the entries of
 * one-off strings are pure overhead (measured on 10,000 ConfigMaps: ~48 bytes per object at
 * 16,384, ~20 at 4,096), while a value repeated across objects recurs long before it ages out.
 */
const GENERATION_SIZE = 4096;

/**
 * Shares repeated string values between cached objects: each object parsed from JSON has its own
 * copy of every string, though most values repeat across objects (namespace, label values, owner
 * names and uids, images, env values, …). `share` hands out the first copy seen of an equal
 * string, so the cache retains one.
 *
 * Bounded: two generations of at most {@link GENERATION_SIZE} entries; when the young one fills up
 * it becomes the old one and the previous old one is dropped. A string seen again is carried into
 * the young generation, so repeated strings stay while one-off ones (names, uids,
 * resourceVersions) age out instead of accumulating.
 */
export class StringPool {
  #young = new Map<string, string>();
  #old = new Map<string, string>();

  /**
   * The pooled copy of a string equal to `s` seen before, or undefined when there is none (`s` is
   * new, now pooled, or out of the pooled length range): the caller replaces its string only
   * then, so a miss costs no store.
   */
  share(s: string): string | undefined {
    if (s.length < MIN_LENGTH || s.length > MAX_LENGTH) return undefined;
    const young = this.#young.get(s);
    if (young !== undefined) return young;
    const old = this.#old.get(s);
    if (this.#young.size >= GENERATION_SIZE) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(old ?? s, old ?? s);
    return old;
  }
}
