/**
 * End to end on the real control plane: a Pod → Workload collection joined with Services by
 * selector stays equal to a from-scratch recomputation while pods and services churn.
 */
import { builtins, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, sharedControlPlane, waitFor } from '@kubeloom/testing';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';
import { selectsNonEmpty } from './labels.ts';

class Workload {
  readonly key: string;
  readonly ip: string;
  readonly services: string[];
  constructor(key: string, ip: string, services: string[]) {
    this.key = key;
    this.ip = ip;
    this.services = services;
  }
  resourceName(): string {
    return this.key;
  }
}

function expectedWorkloads(pods: V1Pod[], services: V1Service[]): Record<string, Workload> {
  const out: Record<string, Workload> = {};
  for (const p of pods) {
    const ip = p.status?.podIP;
    if (!ip) continue;
    const key = `${p.metadata!.namespace}/${p.metadata!.name}`;
    const names = services
      .filter((s) => s.metadata!.namespace === p.metadata!.namespace)
      .filter((s) => selectsNonEmpty(s.spec?.selector, p.metadata?.labels))
      .map((s) => s.metadata!.name!)
      .sort();
    out[key] = new Workload(key, ip, names);
  }
  return out;
}

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('krt on the real control plane', () => {
  const stops: AbortController[] = [];
  afterEach(() => {
    for (const s of stops.splice(0)) s.abort();
  });

  it('Pod → Workload joined with Services by selector matches a from-scratch recomputation under churn', async () => {
    const { kubeConfig } = sharedControlPlane();
    const ns = await createTestNamespace(kubeConfig, 'krt-workloads');
    const kube: KubeClient = createKubeClient({ kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    stops.push(stop);
    stop.signal.addEventListener('abort', () => kube.shutdown());
    const signal = stop.signal;

    const pods = informer(kube, builtins.Pod, { signal, name: 'pods', filter: { namespace: ns } });
    const services = informer(kube, builtins.Service, {
      signal,
      name: 'services',
      filter: { namespace: ns },
    });
    const byNs = namespaceIndex(services);
    const workloads = collection(
      pods,
      (ctx, pod): Workload | undefined => {
        const ip = pod.status?.podIP;
        if (!ip) return undefined;
        const svcs = byNs.fetch(ctx, pod.metadata!.namespace!, filter.selectsNonEmpty(pod.metadata?.labels));
        return new Workload(
          `${pod.metadata!.namespace}/${pod.metadata!.name}`,
          ip,
          svcs.map((s) => s.metadata!.name!).sort(),
        );
      },
      { signal, name: 'workloads' },
    );

    const random = rng(42);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const apps = ['a', 'b', 'c', 'd'];
    let ipN = 1;
    const nextIp = () => `10.1.${ipN >> 8}.${ipN++ & 255}`;

    const createPod = async (name: string) => {
      const created = await kube.api.create(builtins.Pod, {
        metadata: { name, namespace: ns, labels: { app: pick(apps) } },
        spec: { containers: [{ name: 'c', image: 'registry.invalid/x:1' }] },
      });
      await kube.api.update(
        builtins.Pod,
        { ...created, status: { ...created.status, podIP: nextIp() } },
        { subresource: 'status' },
      );
    };
    const createService = (name: string) =>
      kube.api.create(builtins.Service, {
        metadata: { name, namespace: ns },
        spec: { selector: { app: pick(apps) }, ports: [{ port: 80 }] },
      });

    for (let i = 0; i < 12; i++) await createPod(`pod-${i}`);
    for (let i = 0; i < 3; i++) await createService(`svc-${i}`);

    expect(await kube.runAndWait(signal)).toBe(true);
    expect(await workloads.waitUntilSynced(signal)).toBe(true);

    const matches = async (): Promise<boolean> => {
      const livePods = (await kube.api.list(builtins.Pod, { namespace: ns })).items;
      const liveSvcs = (await kube.api.list(builtins.Service, { namespace: ns })).items;
      const want = expectedWorkloads(livePods, liveSvcs);
      const have = Object.fromEntries(workloads.list().map((w) => [w.key, w]));
      return JSON.stringify(sortKeys(have)) === JSON.stringify(sortKeys(want));
    };
    await waitFor('the initial workloads', matches);

    let podN = 12;
    let svcN = 3;
    for (let round = 0; round < 60; round++) {
      const livePods = (await kube.api.list(builtins.Pod, { namespace: ns })).items;
      const liveSvcs = (await kube.api.list(builtins.Service, { namespace: ns })).items;
      const r = random();
      if (r < 0.3 && livePods.length > 0) {
        const p = pick(livePods);
        await kube.api.update(
          builtins.Pod,
          { ...p, status: { ...p.status, podIP: nextIp() } },
          { subresource: 'status' },
        );
      } else if (r < 0.45 && livePods.length > 0) {
        const p = pick(livePods);
        await kube.api.update(builtins.Pod, {
          ...p,
          metadata: { ...p.metadata, labels: { app: pick(apps) } },
        });
      } else if (r < 0.6 && liveSvcs.length > 0) {
        const s = pick(liveSvcs);
        await kube.api.update(builtins.Service, { ...s, spec: { ...s.spec, selector: { app: pick(apps) } } });
      } else if (r < 0.7 && livePods.length > 2) {
        await kube.api.delete(
          { resource: builtins.Pod, name: pick(livePods).metadata!.name!, namespace: ns },
          { gracePeriodSeconds: 0 },
        );
      } else if (r < 0.8) {
        await createPod(`pod-${podN++}`);
      } else if (r < 0.9 && liveSvcs.length > 1) {
        await kube.api.delete({
          resource: builtins.Service,
          name: pick(liveSvcs).metadata!.name!,
          namespace: ns,
        });
      } else {
        await createService(`svc-${svcN++}`);
      }
      if (round % 15 === 14) await waitFor(`convergence after round ${round}`, matches);
    }
    await waitFor('convergence after the churn', matches);
  }, 180_000);
});

function sortKeys(o: Record<string, Workload>): Array<[string, Workload]> {
  return Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
}
