/**
 * The pure sharding helpers' API doc examples, compiled and run: each `// #region` is pulled into
 * a doc comment with `{@includeCode}`.
 */
import type { KubeObject } from '@kubeloom/kube';
import { describe, expect, it } from 'vitest';
import { hash53, hashRing } from './hash-ring.ts';
import { controllerOwnerKey, objectShardKey, shardLabels, validateShardIdentity } from './shard-labels.ts';

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d9f-abcde',
    namespace: 'shop',
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f', uid: 'u1', controller: true },
    ],
  },
};

describe('sharding key examples', () => {
  it('hashRing: where a key belongs, and how little moves when a shard joins', () => {
    // #region hashRing
    const ring = hashRing(['web-0', 'web-1', 'web-2']);
    const owner = ring.shardFor('shop/cart'); // one of web-0, web-1, web-2 — the same in every process
    const grown = hashRing([...ring.shards, 'web-3']);
    // A key either stays where it was or moves to the new shard; about 1/4 of them move.
    const moved = grown.shardFor('shop/cart') !== owner;
    // #endregion hashRing
    expect(ring.shards).toContain(owner);
    expect(hashRing(['web-2', 'web-0', 'web-1']).shardFor('shop/cart')).toBe(owner);
    expect(grown.shardFor('shop/cart')).toBe(moved ? 'web-3' : owner);
    const keys = Array.from({ length: 2000 }, (_, i) => `shop/object-${i}`);
    const movedKeys = keys.filter((k) => grown.shardFor(k) !== ring.shardFor(k));
    expect(movedKeys.every((k) => grown.shardFor(k) === 'web-3')).toBe(true);
    expect(movedKeys.length / keys.length).toBeGreaterThan(0.15);
    expect(movedKeys.length / keys.length).toBeLessThan(0.35);
  });

  it('hash53: a stable 53-bit hash', () => {
    // #region hash53
    const h = hash53('shop/cart'); // an integer below 2^53, equal in every process and run
    // #endregion hash53
    expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
    expect(hash53('shop/cart')).toBe(h);
    expect(hash53('shop/cars')).not.toBe(h);
  });

  it('shardLabels: the label keys of a ring', () => {
    // #region shardLabels
    const labels = shardLabels('web');
    labels.shard; // 'shard.kubeloom.dev/web': on each object, its owner's identity
    labels.drain; // 'drain.kubeloom.dev/web': set by the sharder while the object moves
    labels.standby; // 'standby.kubeloom.dev/web': who adopts the object if its owner is fenced
    labels.leaseSelector; // 'sharding.kubeloom.dev/ring=web': the ring's Leases
    // Cache only this replica's share:
    const labelSelector = `${labels.shard}=web-0`;
    // #endregion shardLabels
    expect(labels).toEqual({
      ring: 'web',
      shard: 'shard.kubeloom.dev/web',
      drain: 'drain.kubeloom.dev/web',
      standby: 'standby.kubeloom.dev/web',
      leaseSelector: 'sharding.kubeloom.dev/ring=web',
    });
    expect(labelSelector).toBe('shard.kubeloom.dev/web=web-0');
    expect(() => shardLabels('Web Ring')).toThrow(/ring name "Web Ring" must be 1–63 characters/);
  });

  it('validateShardIdentity: fail at start-up on an identity that cannot name a Lease', () => {
    // #region validateShardIdentity
    const identity = process.env.POD_NAME ?? 'web-0';
    validateShardIdentity(identity); // throws a TypeError saying what is wrong, e.g. for 'Web_0'
    // #endregion validateShardIdentity
    expect(() => validateShardIdentity('Web_0')).toThrow(/shard identity "Web_0" must be 1–63 characters/);
  });

  it('objectShardKey and controllerOwnerKey: what the sharder hashes', () => {
    // #region objectShardKey
    objectShardKey(pod); // 'shop/web-7d9f-abcde': namespace/name, the sharder's default key
    // #endregion objectShardKey
    // #region controllerOwnerKey
    // A Pod lands on the shard of its ReplicaSet: pass `key: controllerOwnerKey` to createSharder.
    controllerOwnerKey(pod); // 'shop/web-7d9f'
    // #endregion controllerOwnerKey
    expect(objectShardKey(pod)).toBe('shop/web-7d9f-abcde');
    expect(controllerOwnerKey(pod)).toBe('shop/web-7d9f');
    expect(controllerOwnerKey({ metadata: { name: 'node-a' } })).toBe('node-a');
  });
});
