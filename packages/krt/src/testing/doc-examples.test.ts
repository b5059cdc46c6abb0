/**
 * The API doc examples of `@kubeloom/krt/testing`, compiled and run: each function's doc comment
 * includes its region with `{@includeCode ./doc-examples.test.ts#name}`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { collection } from '../collection.ts';
import { staticCollection } from '../static.ts';
import { createCollectionTracker } from './tracker.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

interface Pod {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly image: string;
}
const pod = (name: string, image: string): Pod => ({ metadata: { name, namespace: 'ns' }, image });

describe('@kubeloom/krt/testing API doc examples', () => {
  it('createCollectionTracker: wait for a collection’s events in order', async () => {
    const signal = stop.signal;
    const pods = staticCollection<Pod>([pod('a', 'nginx')], { signal, name: 'pods' });
    const workloads = collection(pods, (_ctx, p) => ({ metadata: p.metadata, image: p.image }), {
      signal,
      name: 'workloads',
    });
    // #region createCollectionTracker
    // Records each event of the collection as "<type>/<key>", the existing state first.
    const tracker = createCollectionTracker(workloads);
    await tracker.waitOrdered('add/ns/a');
    pods.update(pod('b', 'redis'));
    pods.delete('ns/a');
    await tracker.waitUnordered('add/ns/b', 'delete/ns/a');
    await tracker.empty(); // nothing else happened
    tracker.stop();
    // #endregion createCollectionTracker
    // After stop(), nothing more is recorded: a second tracker sees the next add, the first does not.
    const second = createCollectionTracker(workloads, { skipExisting: true });
    pods.update(pod('c', 'redis'));
    await second.waitOrdered('add/ns/c');
    expect(tracker.all()).toEqual(['add/ns/a', 'add/ns/b', 'delete/ns/a']);
    second.stop();
  });
});
