/**
 * The selector parsers against the real kube-apiserver: for a table of label selectors (valid,
 * invalid and edge cases), `parseLabelSelector` accepts exactly what the apiserver accepts,
 * refuses the rest with the apiserver's message, and selects the same objects as a list with
 * that selector; the fake cluster answers the same. Field selectors (grammar and the generic
 * field table) and `metav1.LabelSelector` conversion likewise.
 */
import { createTestNamespace, sharedControlPlane } from '@kubeloom/testing';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './api.ts';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { ApiError } from './errors.ts';
import { createFakeApiClient } from './fake/index.ts';
import { parseFieldSelector } from './field-selector.ts';
import { parseLabelSelector } from './label-selector.ts';
import type { KubeObject } from './object.ts';
import type { ResourceDescriptor } from './resource.ts';
import { SelectorError } from './selector-error.ts';

const v63 = 'v'.repeat(63);
const v64 = 'v'.repeat(64);

/** Label sets of the objects the selectors are matched against. */
const LABELS: ReadonlyArray<Record<string, string>> = [
  {},
  { a: 'b' },
  { a: 'c' },
  { a: '' },
  { a: 'b', c: '' },
  { a: 'in', tier: 'web' },
  { n: '3' },
  { n: '4' },
  { n: '007' },
  { n: 'x' },
  { n: '9223372036854775807' },
  { 'example.com/team': 'blue', a: 'b' },
  { in: 'in', notin: 'b' },
  { a: v63 },
];

const LABEL_SELECTORS: readonly string[] = [
  // valid, and the ones the apiserver accepts that a hand-written parser might not
  '',
  ' ',
  'a',
  '!a',
  '! a',
  'a=b',
  'a==b',
  'a!=b',
  'a=',
  'a==',
  'a!=',
  ' a = b ',
  'a= b',
  'a =b',
  'a=\tb',
  'a\t=b',
  'a, c',
  'a,c',
  'a=b,c',
  'a=b,a=c',
  'a in (b,c)',
  'a in(b)',
  'a notin (b)',
  'a notin (b,in)',
  'a in ()',
  'a notin ()',
  'a in (,)',
  'a in (b,)',
  'a in (,b)',
  'a in (b,,c)',
  'a in (in, notin)',
  'in',
  'in=in',
  'notin in (in)',
  'notin notin (b)',
  'n>3',
  'n<4',
  'n>007',
  'n<00',
  'n>0,n<5',
  'n >3',
  'n>9223372036854775806',
  'example.com/team=blue',
  'example.com/team',
  'A_b.c',
  'a'.repeat(63),
  `${'a.'.repeat(126)}a/b`,
  `a=${v63}`,
  `a in (${v63},b)`,
  'a=b,c!=d,!e,a in (b),tier notin (db)',
  // invalid
  '!',
  '!a=b',
  'a,',
  'a, ',
  ',a',
  ',',
  'a,,b',
  'a,!',
  '(a)',
  'a)',
  'a b',
  'a=b c',
  'a=b=c',
  'a==b==c',
  'a=(b)',
  'a=!b',
  'a!b',
  'a!',
  'a! =b',
  '=b',
  '!=b',
  'a in b',
  'a in',
  'a notin',
  'a in (b',
  'a in (b c)',
  'a in (b)c',
  'a=b)',
  'ain (b)',
  'a gt 1',
  'n>x',
  'n>',
  'n>=1',
  'n>-1',
  'n>+1',
  'n<1x',
  'n>99999999999999999999',
  '-a',
  'a-',
  '/a',
  'a/',
  'a/b/c',
  '.a/b',
  'Example.com/a',
  'a'.repeat(64),
  `${'a'.repeat(254)}/b`,
  `a=${v64}`,
  `a in (b,${v64})`,
  'a=-b',
  'a=b-',
  'a=b\vc',
  'a=b\nc',
  'a=ü',
  'ü',
];

const FIELD_SELECTORS: readonly string[] = [
  '',
  'metadata.name=cm-1',
  'metadata.name==cm-1',
  'metadata.name!=cm-1',
  'metadata.name=',
  'metadata.name=cm-1,',
  ',metadata.name=cm-1',
  'metadata.name=cm-1,,metadata.namespace=NS',
  'metadata.namespace=NS,metadata.name!=cm-2',
  'metadata.name=a\\,b',
  'metadata.name=a\\=b',
  'metadata.name=\\\\',
  'metadata.name = cm-1',
  ' metadata.name=cm-1',
  'metadata.name',
  'metadata.name=a,b',
  'metadata.name=a=b',
  'metadata.name=a\\x',
  'metadata.name=a\\',
  'metadata.name in (cm-1)',
  'metadata.name>1',
  '=x',
  'data.k=v',
];

const METAV1_SELECTORS: readonly V1LabelSelector[] = [
  {},
  { matchLabels: { a: 'b' } },
  { matchLabels: { a: '' } },
  { matchLabels: { a: 'b', 'example.com/team': 'blue' } },
  { matchLabels: { a: v64 } },
  { matchLabels: { '-a': 'b' } },
  { matchExpressions: [{ key: 'a', operator: 'In', values: ['b', 'c'] }] },
  { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [''] }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
  { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'a', operator: 'In' }] },
  { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
  { matchExpressions: [{ key: 'n', operator: 'Gt', values: ['1'] }] },
  { matchExpressions: [{ key: 'a', operator: 'in', values: ['b'] }] },
  { matchExpressions: [{ key: 'a b', operator: 'In', values: ['b'] }] },
  { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['-b'] }] },
  { matchExpressions: [{ key: '', operator: 'Exists' }] },
];

const NETWORK_POLICY: ResourceDescriptor = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
};

/** What a list answers: the sorted names, or the 400's message. */
async function listOutcome(
  api: ApiClient,
  ns: string,
  selector: { labelSelector?: string; fieldSelector?: string },
): Promise<string[] | { refused: string }> {
  try {
    const list = await api.list(builtins.ConfigMap, { namespace: ns, ...selector });
    return list.items.map((o) => o.metadata!.name!).sort();
  } catch (err) {
    if (err instanceof ApiError && err.code === 400) return { refused: err.status?.message ?? err.message };
    throw err;
  }
}

/** What our parser answers: the accepted selector, or the apiserver message it predicts. */
function parseOutcome<T>(parse: () => T): T | { refused: string } {
  try {
    return parse();
  } catch (err) {
    if (err instanceof SelectorError) return { refused: err.detail };
    throw err;
  }
}

const show = (s: string) => JSON.stringify(s.length > 48 ? `${s.slice(0, 24)}…(${s.length} chars)` : s);

describe('selectors: our parser and the fake against the real apiserver', () => {
  let real: ApiClient;
  let ns: string;
  let objects: KubeObject[];
  const fake = createFakeApiClient();

  beforeAll(async () => {
    const { kubeConfig } = sharedControlPlane();
    real = createKubeClient({ kubeConfig }).api;
    ns = await createTestNamespace(kubeConfig, 'selectors');
    for (const [i, labels] of LABELS.entries()) {
      const cm = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: ns, labels },
      };
      await real.create(builtins.ConfigMap, cm);
      await fake.create(builtins.ConfigMap, cm);
    }
    objects = (await real.list(builtins.ConfigMap, { namespace: ns })).items;
    // Every object the apiserver holds in the namespace is one of ours (nothing else to match).
    expect(objects.map((o) => o.metadata!.name).sort()).toEqual(LABELS.map((_, i) => `cm-${i}`).sort());
  });

  afterAll(() => {
    real?.close();
  });

  it('label selectors: accepted and refused alike, with the same message, selecting the same objects', async () => {
    let accepted = 0;
    let refused = 0;
    for (const selector of LABEL_SELECTORS) {
      const server = await listOutcome(real, ns, { labelSelector: selector });
      const ours = parseOutcome(() => parseLabelSelector(selector));
      const inFake = await listOutcome(fake, ns, { labelSelector: selector });
      if (Array.isArray(server)) {
        accepted++;
        expect(ours, `${show(selector)}: the apiserver accepts it`).not.toHaveProperty('refused');
        const matched = objects
          .filter((o) => (ours as ReturnType<typeof parseLabelSelector>).matches(o.metadata!.labels))
          .map((o) => o.metadata!.name!)
          .sort();
        expect(matched, `${show(selector)}: our matcher selects what the apiserver lists`).toEqual(server);
      } else {
        refused++;
        expect(ours, `${show(selector)}: the apiserver refuses it`).toEqual(server);
      }
      expect(inFake, `${show(selector)}: the fake answers as the apiserver`).toEqual(server);
    }
    // The table exercises both sides (a table of one kind would prove little).
    expect(accepted).toBeGreaterThan(40);
    expect(refused).toBeGreaterThan(40);
  });

  it('field selectors: the grammar refuses what the apiserver refuses, the fake answers alike', async () => {
    for (const template of FIELD_SELECTORS) {
      const selector = template.replaceAll('NS', ns);
      const server = await listOutcome(real, ns, { fieldSelector: selector });
      const grammar = parseOutcome(() => parseFieldSelector(selector));
      if (Array.isArray(server)) {
        expect(grammar, `${show(selector)}: the apiserver accepts it`).not.toHaveProperty('refused');
      } else if ('refused' in grammar) {
        expect(grammar, `${show(selector)}: the same message`).toEqual(server);
      } else {
        // Grammatical, refused for the field: which fields a resource has is the server's table.
        expect(server.refused, show(selector)).toMatch(/is not a known field selector|not supported/);
      }
      expect(await listOutcome(fake, ns, { fieldSelector: selector }), `${show(selector)}: the fake`).toEqual(
        server,
      );
    }
  });

  it('metav1.LabelSelector: valid exactly when the apiserver validates it, and its string form lists the same objects', async () => {
    for (const selector of METAV1_SELECTORS) {
      const policy = {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'selector', namespace: ns },
        spec: { podSelector: selector },
      };
      let serverValid = true;
      try {
        await real.create(NETWORK_POLICY, policy, { dryRun: 'All' });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 422)) throw err;
        serverValid = false;
      }
      const ours = parseOutcome(() => parseLabelSelector(selector));
      const label = JSON.stringify(selector);
      expect('refused' in ours, `${label}: the apiserver ${serverValid ? 'accepts' : 'refuses'} it`).toBe(
        !serverValid,
      );
      if ('refused' in ours) continue;
      const server = await listOutcome(real, ns, { labelSelector: ours.toString() });
      const matched = objects
        .filter((o) => ours.matches(o.metadata!.labels))
        .map((o) => o.metadata!.name!)
        .sort();
      expect(matched, `${label} as "${ours.toString()}"`).toEqual(server);
    }
  });
});
