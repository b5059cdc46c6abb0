/**
 * Selector filters on objects whose `spec.selector` is a `metav1.LabelSelector` with
 * `matchExpressions`: evaluated with `@kubeloom/kube`'s parser (the apiserver's semantics), kept
 * exact by the automatic selector index under churn, and an invalid selector is reported.
 */
import { parseLabelSelector, type SerializedError } from '@kubeloom/kube';
import { recordingLogger } from '@kubeloom/kube/fake';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { fetch } from './fetch.ts';
import { filter } from './filter.ts';
import { staticCollection } from './static.ts';
import { settle } from './testing/tracker.ts';

interface Workload {
  metadata: { name: string; namespace: string };
  spec: { selector: V1LabelSelector };
}

const workload = (ns: string, name: string, selector: V1LabelSelector): Workload => ({
  metadata: { name, namespace: ns },
  spec: { selector },
});

const names = (xs: readonly { metadata: { name: string } }[]) => xs.map((x) => x.metadata.name).sort();

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

describe('selector filters with matchExpressions', () => {
  it('select as the apiserver would (In, NotIn, Exists, DoesNotExist, with and without matchLabels)', async () => {
    const signal = stop.signal;
    const workloads = staticCollection<Workload>(
      [
        workload('ns', 'in', { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }),
        workload('ns', 'notin', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] }),
        workload('ns', 'exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }),
        workload('ns', 'absent', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }),
        workload('ns', 'both', {
          matchLabels: { app: 'a' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }],
        }),
        workload('ns', 'labels-only', { matchLabels: { app: 'a' } }),
      ],
      { signal, name: 'workloads' },
    );
    const byNs = namespaceIndex(workloads);
    const pods = staticCollection<TestPod>(
      [
        pod('ns', 'a-web', { labels: { app: 'a', tier: 'web' } }),
        pod('ns', 'b', { labels: { app: 'b' } }),
        pod('ns', 'none'),
      ],
      { signal, name: 'pods' },
    );
    const selected = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        nonEmpty: names(byNs.fetch(ctx, 'ns', filter.selectsNonEmpty(p.metadata.labels))),
        anywhere: names(fetch(ctx, workloads, filter.selects(p.metadata.labels))),
      }),
      { signal, name: 'selected' },
    );
    await selected.waitUntilSynced(signal);
    const want = {
      'a-web': ['both', 'exists', 'in', 'labels-only'],
      b: ['absent', 'in', 'notin'],
      none: ['absent', 'notin'],
    };
    for (const [name, expected] of Object.entries(want)) {
      expect(selected.get(`ns/${name}`)?.nonEmpty, name).toEqual(expected);
      expect(selected.get(`ns/${name}`)?.anywhere, name).toEqual(expected);
    }
  });

  it('stay equal to a brute-force evaluation with the kube parser under random churn', async () => {
    const signal = stop.signal;
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const randomLabels = (): Record<string, string> => {
      const l: Record<string, string> = {};
      if (random() < 0.8) l.app = pick(['a', 'b', 'c']);
      if (random() < 0.5) l.tier = pick(['web', 'db']);
      return l;
    };
    const randomSelector = (): V1LabelSelector => {
      const sel: V1LabelSelector = {};
      if (random() < 0.5) sel.matchLabels = { app: pick(['a', 'b']) };
      const exprs: NonNullable<V1LabelSelector['matchExpressions']> = [];
      if (random() < 0.6) exprs.push({ key: 'tier', operator: pick(['Exists', 'DoesNotExist']) });
      if (random() < 0.6)
        exprs.push({ key: 'app', operator: pick(['In', 'NotIn']), values: [pick(['a', 'b', 'c'])] });
      if (exprs.length > 0) sel.matchExpressions = exprs;
      return sel;
    };
    const workloads = staticCollection<Workload>([], { signal, name: 'workloads' });
    const pods = staticCollection<TestPod>([], { signal, name: 'pods' });
    const byNs = namespaceIndex(workloads);
    const selected = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        nonEmpty: names(byNs.fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))),
        anywhere: names(fetch(ctx, workloads, filter.selects(p.metadata.labels))),
      }),
      { signal, name: 'selected' },
    );
    const check = (): void => {
      const all = workloads.list();
      for (const p of pods.list()) {
        const key = `${p.metadata.namespace}/${p.metadata.name}`;
        const selects = (w: Workload) => parseLabelSelector(w.spec.selector).matches(p.metadata.labels);
        const nonEmpty = (w: Workload) => !parseLabelSelector(w.spec.selector).empty && selects(w);
        expect(selected.get(key), key).toEqual({
          metadata: p.metadata,
          nonEmpty: names(all.filter((w) => w.metadata.namespace === p.metadata.namespace && nonEmpty(w))),
          anywhere: names(all.filter(selects)),
        });
      }
    };
    for (let round = 0; round < 300; round++) {
      const ns = pick(['n0', 'n1']);
      const r = random();
      if (r < 0.35) pods.update(pod(ns, `p${Math.floor(random() * 10)}`, { labels: randomLabels() }));
      else if (r < 0.45) pods.delete(`${ns}/p${Math.floor(random() * 10)}`);
      else if (r < 0.85) workloads.update(workload(ns, `w${Math.floor(random() * 6)}`, randomSelector()));
      else workloads.delete(`${ns}/w${Math.floor(random() * 6)}`);
      if (round % 10 === 9) {
        await settle(3);
        check();
      }
    }
    await settle(3);
    check();
  });

  it('an invalid selector makes the fetch fail with the apiserver message', async () => {
    const signal = stop.signal;
    const logger = recordingLogger();
    const workloads = staticCollection<Workload>(
      [workload('ns', 'bad', { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] })],
      { signal },
    );
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { app: 'a' } })], { signal });
    const c = collection(pods, (ctx, p) => fetch(ctx, workloads, filter.selects(p.metadata.labels)).length, {
      signal,
      logger,
      name: 'invalid',
    });
    await c.waitUntilSynced(signal);
    expect(c.list()).toEqual([]);
    expect(logger.records).toHaveLength(1);
    expect((logger.records[0]!.fields as { err: SerializedError }).err.message).toBe(
      "spec.selector is not a valid label selector: values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
  });
});
