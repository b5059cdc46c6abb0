// Differential test of the CEL libraries kube-apiserver offers to CRD validation rules (URLs,
// IP/CIDR, quantity, semver, lists, regex, sets, strings, format, optionals, two-variable
// comprehensions, messageExpression, optionalOldSelf, transition rules, timestamps and durations,
// the strings extension's format, the lists extension): every case's rule sits
// on its own field of one CRD; each value is sent with dryRun=All and the runtime validator must
// evaluate the rule (nothing "not evaluated"), reach the same verdict and write the same messages.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createValidator, type JsonSchemaProps, type ValidationResult } from '@kubeloom/codegen-runtime';
import {
  type ApiError,
  createKubeClient,
  type KubeClient,
  type KubeObject,
  noopLogger,
  type ResourceDescriptor,
} from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CEL_LIBRARY_CASES } from '../test/cel-library-cases.ts';
import { CEL_TIME_FORMAT_CASES } from '../test/cel-time-format-cases.ts';
import { testOutputDir } from '../test/helpers.ts';

const GROUP = 'cellibs.kubeloom.dev';
const d: ResourceDescriptor = {
  group: GROUP,
  version: 'v1',
  kind: 'CelLib',
  plural: 'cellibs',
  namespaced: true,
};

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-cellibs');
});

afterAll(() => kube?.shutdown());

const CASES = [...CEL_LIBRARY_CASES, ...CEL_TIME_FORMAT_CASES];

const field = (i: number) => `c${i}`;

function schema(): JsonSchemaProps {
  const properties: Record<string, JsonSchemaProps> = {};
  CASES.forEach((c, i) => {
    properties[field(i)] = {
      ...c.schema,
      'x-kubernetes-validations': [
        {
          rule: c.rule,
          ...(c.message ? { message: c.message } : {}),
          ...(c.messageExpression ? { messageExpression: c.messageExpression } : {}),
          ...(c.optionalOldSelf ? { optionalOldSelf: true } : {}),
        },
      ],
    };
  });
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties } },
  };
}

interface Outcome {
  accepted: boolean;
  messages: string[];
}

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    await p;
    return { accepted: true, messages: [] };
  } catch (e) {
    const err = e as ApiError;
    if (!err.causes) throw e;
    return {
      accepted: false,
      messages: err.causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).sort(),
    };
  }
}

const mine = (r: ValidationResult): Outcome => ({
  accepted: r.valid,
  messages: r.errors.map((e) => `${e.path}: ${e.message}`).sort(),
});

interface Probe {
  readonly library: string;
  readonly label: string;
  readonly object: Record<string, unknown>;
  readonly old?: Record<string, unknown>;
}

async function pool<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

describe('CEL libraries against kube-apiserver (dryRun=All)', () => {
  it('evaluates every library rule client-side with the apiserver verdicts and messages', async () => {
    const openAPIV3Schema = schema();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `cellibs.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'cellibs', singular: 'cellib', kind: 'CelLib', listKind: 'CelLibList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
      },
    };
    await installCRDs(sharedControlPlane().kubeConfig, [crd as unknown as CRDObject], { timeoutMs: 90_000 });
    const validator = createValidator(openAPIV3Schema);
    const probes: Probe[] = [];
    CASES.forEach((c, i) => {
      const spec = (v: unknown) => ({ apiVersion: `${GROUP}/v1`, kind: 'CelLib', spec: { [field(i)]: v } });
      for (const v of c.values)
        probes.push({ library: c.library, label: `${c.rule} with ${JSON.stringify(v)}`, object: spec(v) });
      for (const [o, v] of c.updates ?? []) {
        probes.push({
          library: c.library,
          label: `${c.rule} updating ${JSON.stringify(o)} to ${JSON.stringify(v)}`,
          object: spec(v),
          old: spec(o),
        });
      }
    });
    const results = await pool(probes, 6, async (p, i) => {
      const name = `p${i}`;
      if (!p.old) {
        const obj = { ...p.object, metadata: { name, namespace } } as KubeObject;
        return {
          p,
          mine: validator.validate(obj),
          server: await outcome(kube.api.create(d, obj, { dryRun: 'All' })),
        };
      }
      const old = await kube.api.create(d, { ...p.old, metadata: { name, namespace } } as KubeObject);
      try {
        const obj = { ...p.object, metadata: old.metadata } as KubeObject;
        return {
          p,
          mine: validator.validate(obj, { oldObject: old }),
          server: await outcome(kube.api.update(d, obj, { dryRun: 'All' })),
        };
      } finally {
        await kube.api.delete({ resource: d, name, namespace }).catch(() => undefined);
      }
    });
    const byLibrary: Record<
      string,
      { probes: number; rejected: number; agree: number; sameMessages: number }
    > = {};
    const notEvaluated: string[] = [];
    const disagreements: string[] = [];
    for (const r of results) {
      const stats = byLibrary[r.p.library] ?? { probes: 0, rejected: 0, agree: 0, sameMessages: 0 };
      byLibrary[r.p.library] = stats;
      stats.probes++;
      if (!r.server.accepted) stats.rejected++;
      for (const n of r.mine.notEvaluated) notEvaluated.push(`${r.p.label}: ${n.reason}`);
      const m = mine(r.mine);
      if (m.accepted === r.server.accepted) stats.agree++;
      if (JSON.stringify(m) === JSON.stringify(r.server)) stats.sameMessages++;
      else
        disagreements.push(
          `${r.p.label}: apiserver ${r.server.accepted ? 'accepts' : r.server.messages.join(' | ')} ; validator ${m.accepted ? 'accepts' : m.messages.join(' | ')}`,
        );
    }
    const lines = [
      `CEL libraries (runtime validator vs kube-apiserver, dryRun=All): ${results.length} probes of ${CASES.length} rules`,
      ...Object.entries(byLibrary).map(
        ([lib, s]) =>
          `  ${lib}: ${s.probes} probes (${s.rejected} rejected by the apiserver), verdicts agree ${s.agree}, messages agree ${s.sameMessages}`,
      ),
      `  not evaluated client-side: ${notEvaluated.length}`,
    ];
    console.log(lines.join('\n'));
    for (const x of disagreements) console.log(`  DIFFERS ${x}`);
    for (const x of notEvaluated) console.log(`  NOT EVALUATED ${x}`);
    writeFileSync(
      path.join(testOutputDir('cel-libraries'), 'report.json'),
      JSON.stringify({ byLibrary, notEvaluated, disagreements }, null, 2),
    );
    expect(notEvaluated).toEqual([]);
    expect(disagreements).toEqual([]);
    expect(results.length).toBeGreaterThan(500);
  }, 600_000);
});
