import { describe, expect, it } from 'vitest';
import { isTombstone, type Tombstone } from '../informer.ts';
import type { KubeObject } from '../object.ts';
import { ObjectStore } from '../object-store.ts';
import { HandlerSet } from './handler-set.ts';
import { UnionCache, type UnionSource } from './union-cache.ts';

const obj = (rv: string, labels: Record<string, string> = {}): KubeObject =>
  Object.freeze({ metadata: { name: 'x', namespace: 'ns', resourceVersion: rv, labels } });

const source = (): UnionSource => ({ keys: new Set(), claims: new Set() });

/** A cache whose delete check answers what the test decides, when it decides. */
function setup() {
  const events: string[] = [];
  const handlers = new HandlerSet<KubeObject>(undefined, (_c, err) => {
    throw err;
  });
  handlers.add({
    onAdd: (o) => events.push(`add ${o.metadata?.resourceVersion}`),
    onUpdate: (_o, n) => events.push(`update ${n.metadata?.resourceVersion}`),
    onDelete: (o: KubeObject | Tombstone) => events.push(isTombstone(o) ? 'delete tombstone' : 'delete'),
  });
  const answers: Array<(to: UnionSource | undefined) => void> = [];
  const store = new ObjectStore<KubeObject>();
  const cache = new UnionCache<KubeObject, UnionSource>({
    store,
    handlers,
    initial: () => false,
    deleteCheck: {
      mayMove: () => true,
      movedTo: () => new Promise((resolve) => answers.push(resolve)),
    },
  });
  return { cache, store, events, answers };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('UnionCache', () => {
  it('a delete confirmed as a move holds the key for the target until it reports the object', async () => {
    const { cache, store, events, answers } = setup();
    const [a, b] = [source(), source()];
    cache.upsert(a, obj('1', { s: 'a' }));
    cache.remove(a, obj('2', { s: 'a' })); // DELETED with the previous content at the new version
    expect(store.get('ns/x')?.metadata?.resourceVersion).toBe('1');
    answers[0]!(b);
    await flush();
    expect(b.claims.has('ns/x')).toBe(true);
    cache.upsert(b, obj('2', { s: 'b' }));
    expect(b.claims.size).toBe(0);
    expect(events).toEqual(['add 1', 'update 2']);
  });

  it('an add arriving while the check runs cancels the delete', async () => {
    const { cache, events, answers } = setup();
    const [a, b] = [source(), source()];
    cache.upsert(a, obj('1'));
    cache.remove(a, obj('2'));
    cache.upsert(b, obj('2'));
    answers[0]!(undefined);
    await flush();
    expect(events).toEqual(['add 1', 'update 2']);
  });

  it('a claim the target turns out not to have (synced or relisted without it) ends as a tombstone', async () => {
    const { cache, store, events, answers } = setup();
    const [a, b] = [source(), source()];
    cache.upsert(a, obj('1'));
    cache.remove(a, obj('2'));
    answers[0]!(b);
    await flush();
    cache.verifyClaims(b, () => true);
    expect(store.size).toBe(1);
    cache.verifyClaims(b, () => false);
    // The claim's end is a delete by b: checked again, and this time gone.
    answers[1]!(undefined);
    await flush();
    expect(events).toEqual(['add 1', 'delete tombstone']);
    expect(store.size).toBe(0);
  });

  it('a delete confirmed as gone is delivered; nothing after close', async () => {
    const { cache, events, answers } = setup();
    const a = source();
    cache.upsert(a, obj('1'));
    cache.remove(a, obj('2'));
    answers[0]!(undefined);
    await flush();
    expect(events).toEqual(['add 1', 'delete']);
    cache.upsert(a, obj('3'));
    cache.remove(a, obj('4'));
    cache.close();
    answers[1]!(undefined);
    await flush();
    expect(events).toEqual(['add 1', 'delete', 'add 3']);
  });
});
