/**
 * The status writer on the real control plane: a CRD with a status subresource, statuses derived
 * by a status collection and applied by server-side apply with a field manager, gated by Lease
 * leader election against a second replica.
 */
import { createLeaderElector, type LeaderElector } from '@kubeloom/controllers';
import {
  builtins,
  createKubeClient,
  defineResource,
  type KubeClient,
  type KubeObject,
  noopLogger,
} from '@kubeloom/kube';
import {
  type CRDObject,
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  waitFor,
} from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { informer } from './informer.ts';
import { statusCollection } from './status.ts';
import { applyStatusWrite, type StatusWriter, startStatusWriter } from './status-writer.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; observedSize?: number };
}

interface WidgetStatus {
  phase: string;
  observedSize: number;
}

const GROUP = 'krt-status.kubeloom.dev';
const Widget = defineResource<Widget>({
  group: GROUP,
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  subresources: { status: true },
});

const crd: CRDObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, observedSize: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

const FIELD_MANAGER = 'krt-status-writer';
// Short enough for a quick test, long enough that a loaded machine does not lose a renewal.
const TIMINGS = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };

describe('status writer on the real control plane', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('applies derived statuses by SSA only while leading, re-applies upstream changes, resyncs on leadership', async () => {
    const { kubeConfig } = sharedControlPlane();
    await installCRDs(kubeConfig, [crd]);
    const ns = await createTestNamespace(kubeConfig, 'krt-status');
    const kube: KubeClient = createKubeClient({ kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    const signal = stop.signal;
    let writer: StatusWriter | undefined;
    cleanups.push(async () => {
      stop.abort();
      await writer?.closed;
      kube.shutdown();
    });

    // Another replica leads first.
    const lease = { namespace: ns, name: 'widget-status' };
    const otherStop = new AbortController();
    const other: LeaderElector = createLeaderElector({
      api: kube.api,
      lease,
      identity: 'other-replica',
      logger: noopLogger,
      ...TIMINGS,
      onStartedLeading: (s) => new Promise<void>((resolve) => s.addEventListener('abort', () => resolve())),
    });
    let otherRun = other.run(otherStop.signal);
    cleanups.push(async () => {
      otherStop.abort();
      await otherRun;
    });
    await waitFor('the other replica to lead', () => other.isLeader());

    const widgets = informer(kube, Widget, { signal, name: 'widgets', filter: { namespace: ns } });
    const { status } = statusCollection<Widget, WidgetStatus, never>(
      widgets,
      (_ctx, w) => [{ phase: 'Ready', observedSize: w.spec?.size ?? 0 }, undefined],
      { signal, name: 'widget-status' },
    );
    writer = startStatusWriter(status, {
      signal,
      write: applyStatusWrite<Widget, WidgetStatus>(kube, Widget, FIELD_MANAGER),
      currentStatus: (w) => w.status as WidgetStatus | undefined,
      leadership: { api: kube.api, lease, identity: 'this-replica', logger: noopLogger, ...TIMINGS },
      logger: noopLogger,
    });
    const w = writer;

    for (const [name, size] of [
      ['a', 1],
      ['b', 2],
    ] as const) {
      await kube.api.create(Widget, {
        apiVersion: `${GROUP}/v1`,
        kind: 'Widget',
        metadata: { name, namespace: ns },
        spec: { size },
      });
    }
    expect(await kube.runAndWait(signal)).toBe(true);
    expect(await status.waitUntilSynced(signal)).toBe(true);

    const live = async (name: string): Promise<Widget> =>
      kube.api.get({ resource: Widget, name, namespace: ns });
    const statusOf = async (name: string) => (await live(name)).status;

    // Not leading: the writer looks at both keys and writes nothing.
    await waitFor('both keys to be declined', () => w.stats().skippedNotLeader >= 2);
    expect(w.isWriting()).toBe(false);
    expect(w.stats().writes).toBe(0);
    for (const name of ['a', 'b']) {
      const obj = await live(name);
      expect(obj.status).toBeUndefined();
      expect((obj.metadata?.managedFields ?? []).map((f) => f.manager)).not.toContain(FIELD_MANAGER);
    }

    // The other replica steps down (graceful release): this one leads, resyncs and writes.
    otherStop.abort();
    await otherRun;
    await waitFor('this replica to lead', () => w.elector!.isLeader());
    await waitFor('statuses to converge', async () => {
      const [a, b] = [await statusOf('a'), await statusOf('b')];
      return a?.phase === 'Ready' && a.observedSize === 1 && b?.phase === 'Ready' && b.observedSize === 2;
    });
    const applied = (await live('a')).metadata?.managedFields?.find((f) => f.manager === FIELD_MANAGER);
    expect(applied).toMatchObject({ operation: 'Apply', subresource: 'status' });

    // A spec change is reflected; a status changed upstream (another manager) is re-applied.
    // Writes retry on conflict: the status writer may write between our read and our update.
    await waitFor('the spec update of a', async () => {
      const a = await live('a');
      return kube.api.update(Widget, { ...a, spec: { size: 5 } });
    });
    await waitFor('observedSize 5', async () => (await statusOf('a'))?.observedSize === 5);
    await waitFor('the status of a to be tampered with', async () => {
      const a2 = await live('a');
      return kube.api.update(
        Widget,
        { ...a2, status: { phase: 'Tampered', observedSize: 99 } },
        { subresource: 'status' },
      );
    });
    await waitFor('the tampered status to be re-applied', async () => {
      const s = await statusOf('a');
      return s?.phase === 'Ready' && s.observedSize === 5;
    });

    // The other replica takes the Lease over: this one stops writing.
    // The leader renews the Lease meanwhile: retry on conflict.
    await waitFor('the Lease to name the other replica', async () => {
      const current = await kube.api.get({
        resource: builtins.Lease,
        name: lease.name,
        namespace: lease.namespace,
      });
      return kube.api.update(builtins.Lease, {
        ...current,
        spec: { ...current.spec, holderIdentity: 'other-replica' },
      });
    });
    const otherStop2 = new AbortController();
    otherRun = other.run(otherStop2.signal);
    cleanups.push(async () => {
      otherStop2.abort();
      await otherRun;
    });
    await waitFor('this replica to stop writing', () => !w.isWriting() && !w.elector!.isLeader());
    const declined = w.stats().skippedNotLeader;
    await waitFor('the spec update of b', async () => {
      const b = await live('b');
      return kube.api.update(Widget, { ...b, spec: { size: 7 } });
    });
    await waitFor('the change to be declined', () => w.stats().skippedNotLeader > declined);
    expect((await statusOf('b'))?.observedSize).toBe(2);

    // Leadership comes back: the resync writes what was declined meanwhile.
    otherStop2.abort();
    await otherRun;
    await waitFor('the declined status to be written after the resync', async () => {
      return (await statusOf('b'))?.observedSize === 7;
    });
  }, 180_000);
});
