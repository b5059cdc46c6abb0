import { builtins } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { type RealHarness, realKube } from '../test/real-harness.ts';
import { newNamespace } from '../test/scenarios.ts';
import { createEventRecorder } from './create-event-recorder.ts';

const harnesses: RealHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('EventRecorder on the real API server', () => {
  it('creates, deduplicates and aggregates core/v1 Events; cluster-scoped objects report in default', async () => {
    const h = realKube();
    harnesses.push(h);
    const { kube } = h;
    const ns = await newNamespace(kube);
    const cm = await kube.api.create(builtins.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'subject', namespace: ns },
    });
    const namespace = await kube.api.get({ resource: builtins.Namespace, name: ns });
    const recorder = createEventRecorder(kube, { component: 'kclient-it', maxSimilarEvents: 3 });
    recorder.write(cm, { type: 'Normal', reason: 'Synced', message: 'all good' });
    recorder.write(cm, { type: 'Normal', reason: 'Synced', message: 'all good' });
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'first' });
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'second' });
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'third' }); // the 3rd distinct message: aggregated
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'fourth' });
    recorder.write(
      { ...namespace, apiVersion: 'v1', kind: 'Namespace' },
      { type: 'Normal', reason: 'Observed', message: 'namespace seen' },
    );
    await recorder.shutdown();

    const inNs = (await kube.api.list(builtins.Event, { namespace: ns })).items;
    const summary = inNs
      .map(
        (e) =>
          `${e.type}/${e.reason}/${e.message}/${e.count}/${e.involvedObject.kind}/${e.involvedObject.name}`,
      )
      .sort();
    expect(summary).toEqual([
      'Normal/Synced/all good/2/ConfigMap/subject',
      'Warning/Failed/(combined from similar events): fourth/2/ConfigMap/subject',
      'Warning/Failed/first/1/ConfigMap/subject',
      'Warning/Failed/second/1/ConfigMap/subject',
    ]);
    expect(inNs.every((e) => e.involvedObject.uid === cm.metadata?.uid)).toBe(true);
    const inDefault = (await kube.api.list(builtins.Event, { namespace: 'default' })).items.filter(
      (e) => e.involvedObject.name === ns,
    );
    expect(inDefault.map((e) => [e.involvedObject.kind, e.reason, e.count])).toEqual([
      ['Namespace', 'Observed', 1],
    ]);
  });
});
