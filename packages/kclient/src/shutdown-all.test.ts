import { builtins } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from './fake-harness.test-util.ts';
import { newClient } from './new-client.ts';
import { shutdownAll } from './shutdown-all.ts';
import { EventTracker, trackerHandler } from './testing/event-tracker.ts';

afterEach(closeFakes);

describe('shutdownAll', () => {
  it('removes the handlers of every client and registration given, and nothing else', async () => {
    const { kube, stop } = fakeKube();
    const a = newClient(kube, builtins.ConfigMap);
    const b = newClient(kube, builtins.ConfigMap, { namespace: 'ns' });
    const [ta, tb, tr, kept] = [
      new EventTracker(),
      new EventTracker(),
      new EventTracker(),
      new EventTracker(),
    ];
    a.addEventHandler(trackerHandler(ta));
    b.addEventHandler(trackerHandler(tb));
    const c = newClient(kube, builtins.ConfigMap);
    const reg = c.addEventHandler(trackerHandler(tr));
    c.addEventHandler(trackerHandler(kept));
    await kube.runAndWait(stop.signal);
    shutdownAll(a, undefined, b, reg);
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'x', namespace: 'ns' } });
    await kept.waitOrdered('add/x');
    ta.empty();
    tb.empty();
    tr.empty();
    expect(reg.hasSynced()).toBe(true);
  });
});
