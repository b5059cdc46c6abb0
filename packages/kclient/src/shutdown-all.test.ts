import { builtins } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createClient } from './create-client.ts';
import { shutdownAll } from './shutdown-all.ts';
import { createEventTracker, trackerHandler } from './testing/event-tracker.ts';

afterEach(closeFakes);

describe('shutdownAll', () => {
  it('removes the handlers of every client and registration given, and nothing else', async () => {
    const { kube, stop } = fakeKube();
    const a = createClient(kube, builtins.ConfigMap);
    const b = createClient(kube, builtins.ConfigMap, { namespace: 'ns' });
    const [ta, tb, tr, kept] = [
      createEventTracker(),
      createEventTracker(),
      createEventTracker(),
      createEventTracker(),
    ];
    a.addEventHandler(trackerHandler(ta));
    b.addEventHandler(trackerHandler(tb));
    const c = createClient(kube, builtins.ConfigMap);
    const reg = c.addEventHandler(trackerHandler(tr));
    c.addEventHandler(trackerHandler(kept));
    await kube.runAndWait(stop.signal);
    shutdownAll(a, undefined, b, reg);
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'x', namespace: 'ns' } });
    await kept.waitOrdered('add/x');
    await ta.empty();
    await tb.empty();
    await tr.empty();
    expect(reg.hasSynced()).toBe(true);
  });
});
