// Differential test of the static CEL cost estimator against kube-apiserver: every CRD below is
// created with dryRun=All, and our verdict (the cost issues `checkRuleCosts` reports, each with
// the apiserver's field path and message) must equal the apiserver's (the cost causes of its
// rejection, or none). Families are checked at the largest size our estimator accepts and the
// next one up, so an estimate off by one cost unit shows as a disagreement.
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { type ApiError, builtins, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { type CRDObject, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_CASES, COST_FAMILIES, type CostCase } from '../test/cel-cost-cases.ts';
import { checkRuleCosts } from './internal/cel-cost/crd-cost.ts';

const GROUP = 'celcost.kubeloom.dev';
const BASE = 'spec.validation.openAPIV3Schema';

let kube: KubeClient;

beforeAll(() => {
  kube = createKubeClient({ kubeConfig: sharedControlPlane().kubeConfig, logger: noopLogger });
});

afterAll(() => kube?.shutdown());

const root = (spec: JsonSchemaProps): JsonSchemaProps => ({ type: 'object', properties: { spec } });

const crd = (i: number, spec: JsonSchemaProps): CRDObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `costs${i}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: `Cost${i}`, plural: `costs${i}` },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: root(spec) as never } }],
  },
});

/** The apiserver's cost causes for the CRD (empty when it accepts it), as `field: message`, sorted. */
async function serverVerdict(i: number, spec: JsonSchemaProps): Promise<string[]> {
  try {
    await kube.api.create(builtins.CustomResourceDefinition, crd(i, spec) as never, { dryRun: 'All' });
    return [];
  } catch (e) {
    const causes = (e as ApiError).causes;
    if (!causes?.length) throw e;
    // the cases are valid CRDs apart from their costs: any other cause is a disagreement
    return causes.map((c) => `${c.field}: ${c.message}`).sort();
  }
}

function ourVerdict(spec: JsonSchemaProps): string[] {
  return checkRuleCosts(root(spec), { base: BASE })
    .map((i) => `${i.field}: Forbidden: ${i.message}`)
    .sort();
}

const accepts = (spec: JsonSchemaProps) => checkRuleCosts(root(spec), { base: BASE }).length === 0;

/** The largest n (up to 2^24) our estimator accepts, and the next: the two sides of the limit. */
function boundary(spec: (n: number) => JsonSchemaProps): number[] {
  if (!accepts(spec(0))) return [0];
  let hi = 1;
  while (hi < 2 ** 24 && accepts(spec(hi))) hi *= 2;
  if (accepts(spec(hi))) return [hi];
  let lo = hi / 2;
  if (hi === 1) lo = 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (accepts(spec(mid))) lo = mid;
    else hi = mid;
  }
  return [lo, hi];
}

const cases: CostCase[] = [
  ...COST_FAMILIES.flatMap((f) =>
    boundary(f.spec).map((n) => ({ name: `${f.name} (n=${n})`, spec: f.spec(n) })),
  ),
  ...COST_CASES,
];

describe('CEL cost estimation against kube-apiserver', () => {
  it('reaches the apiserver verdict and messages on every CRD', async () => {
    const rows: string[] = [];
    let agree = 0;
    let rejected = 0;
    for (const [i, c] of cases.entries()) {
      const server = await serverVerdict(i, c.spec);
      const ours = ourVerdict(c.spec);
      const same = JSON.stringify(server) === JSON.stringify(ours);
      if (same) agree++;
      if (server.length > 0) rejected++;
      rows.push(
        `${same ? 'agree   ' : 'DISAGREE'} ${c.name}: ${server.length === 0 ? 'accepted' : 'rejected'}`,
      );
      if (!same)
        rows.push(
          `  apiserver: ${server.join('\n             ')}`,
          `  ours:      ${ours.join('\n             ')}`,
        );
    }
    console.log(
      `CEL cost verdicts: ${agree}/${cases.length} agree (${rejected} rejected by the apiserver)\n${rows.join('\n')}`,
    );
    expect(rows.filter((r) => r.startsWith('DISAGREE'))).toEqual([]);
    // both verdicts occur: the cases can fail either way
    expect(rejected).toBeGreaterThan(10);
    expect(cases.length - rejected).toBeGreaterThan(10);
  });

  it('checks each version apart when the versions have different schemas, as the apiserver does', async () => {
    const costly = {
      type: 'array',
      items: { type: 'integer' },
      'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }],
    };
    const schemas = [
      root({ type: 'object', properties: { xs: { type: 'array', items: { type: 'integer' } } } }),
      root({ type: 'object', properties: { xs: costly } }),
    ];
    const two: CRDObject = {
      ...crd(999, {}),
      spec: {
        ...crd(999, {}).spec,
        versions: schemas.map((schema, i) => ({
          name: `v${i + 1}`,
          served: true,
          storage: i === 0,
          schema: { openAPIV3Schema: schema as never },
        })),
      },
    };
    let server: string[] = [];
    try {
      await kube.api.create(builtins.CustomResourceDefinition, two as never, { dryRun: 'All' });
    } catch (e) {
      server = ((e as ApiError).causes ?? []).map((c) => `${c.field}: ${c.message}`).sort();
    }
    const ours = schemas
      .flatMap((schema, i) => checkRuleCosts(schema, { base: `spec.versions[${i}].schema.openAPIV3Schema` }))
      .map((i) => `${i.field}: Forbidden: ${i.message}`)
      .sort();
    expect(server.length).toBeGreaterThan(0);
    expect(ours).toEqual(server);
  });
});
