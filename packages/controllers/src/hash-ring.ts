/** Options of {@link hashRing}. */
export interface HashRingOptions {
  /**
   * Points per shard on the ring. More points even out the shards' shares: a shard's share
   * deviates from 1/N by about 1/√virtualNodes (≈ 3 % at the default 1000). Default 1000.
   */
  readonly virtualNodes?: number;
}

/** A consistent-hash ring over a set of shards (see {@link hashRing}). */
export interface HashRing {
  /** The shards, sorted. */
  readonly shards: readonly string[];
  /** The shard a key belongs to, or `undefined` when the ring has no shards. */
  shardFor(key: string): string | undefined;
  /**
   * The shard `key` would belong to if its owner ({@link HashRing.shardFor}) left the ring: the
   * owner of the first point after the key's point that another shard owns. Equals `shardFor` on
   * the ring without that owner; `undefined` with fewer than two shards.
   */
  successorFor(key: string): string | undefined;
}

/**
 * A consistent-hash ring with virtual nodes: each shard owns `virtualNodes` points, a key belongs
 * to the first point at or after its hash (wrapping around). Pure: equal shard sets give equal
 * rings in every process, whatever the order they are listed in. When a shard joins, only the
 * keys it takes over move (≈ 1/N); when one leaves, only its keys move.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#hashRing}
 *
 * @throws TypeError when a shard is not a non-empty string or `virtualNodes` is not a positive
 *   integer.
 */
export function hashRing(shards: Iterable<string>, opts: HashRingOptions = {}): HashRing {
  const virtualNodes = opts.virtualNodes ?? 1000;
  if (!Number.isInteger(virtualNodes) || virtualNodes < 1 || virtualNodes > 100_000) {
    throw new TypeError(
      `hashRing: virtualNodes must be an integer from 1 to 100000, got ${String(virtualNodes)}`,
    );
  }
  const sorted = [...new Set(shards)].sort();
  for (const s of sorted) {
    if (typeof s !== 'string' || s === '') {
      throw new TypeError(`hashRing: shards must be non-empty strings, got ${JSON.stringify(s)}`);
    }
  }
  const count = sorted.length * virtualNodes;
  const points = new Float64Array(count);
  const owners = new Uint32Array(count);
  const order = new Uint32Array(count);
  for (let s = 0; s < sorted.length; s++) {
    for (let v = 0; v < virtualNodes; v++) {
      const i = s * virtualNodes + v;
      points[i] = hash53(`${sorted[s]}#${v}`);
      owners[i] = s;
      order[i] = i;
    }
  }
  // Ties (equal hashes) are broken by shard order, so every process builds the same ring.
  order.sort((a, b) => points[a]! - points[b]! || owners[a]! - owners[b]!);
  const ringPoints = Float64Array.from(order, (i) => points[i]!);
  const ringOwners = Uint32Array.from(order, (i) => owners[i]!);
  /** The index of the first point at or after the key's hash, wrapping around. */
  const pointOf = (key: string): number => {
    const h = hash53(key);
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ringPoints[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return lo === count ? 0 : lo;
  };
  return {
    shards: sorted,
    shardFor(key: string): string | undefined {
      if (count === 0) return undefined;
      return sorted[ringOwners[pointOf(key)]!];
    },
    successorFor(key: string): string | undefined {
      if (sorted.length < 2) return undefined;
      const first = pointOf(key);
      const owner = ringOwners[first]!;
      for (let i = (first + 1) % count; i !== first; i = (i + 1) % count) {
        if (ringOwners[i] !== owner) return sorted[ringOwners[i]!];
      }
      return undefined;
    },
  };
}

/**
 * A 53-bit string hash (cyrb53: two 32-bit multiply-xorshift lanes, mixed at the end); well
 * spread for similar inputs such as `shard#1`, `shard#2`. Not cryptographic.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#hash53}
 */
export function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
