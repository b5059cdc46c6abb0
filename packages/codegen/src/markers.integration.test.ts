// The CRD generated from the markers fixture on the real control plane: accepted as written, and
// each marker's constraint enforced by the apiserver exactly as the runtime validator predicts.
import path from 'node:path';
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { createValidator } from '@kubeloom/codegen-runtime';
import {
  createKubeClient,
  type KubeClient,
  type KubeObject,
  noopLogger,
  type ResourceDescriptor,
} from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';

const testdata = path.join(import.meta.dirname, 'testdata');
const knob: ResourceDescriptor = {
  group: 'markers.kubeloom.dev',
  version: 'v1',
  kind: 'Knob',
  plural: 'knobs',
  namespaced: true,
};

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-markers');
});

afterAll(() => kube?.shutdown());

describe('the markers fixture on a real kube-apiserver', () => {
  it('is accepted as generated, and every marker constrains objects as the validator predicts', async () => {
    const [r] = generateCrds([path.join(testdata, 'markers/types.ts')], { baseDir: testdata }).model
      .resources;
    const crd = resourceToCrd(r!);
    const [installed] = await installCRDs(sharedControlPlane().kubeConfig, [crd as unknown as CRDObject]);
    const spec = installed!.spec as unknown as {
      names: Record<string, unknown>;
      versions: Array<{ subresources?: unknown; schema: { openAPIV3Schema: JsonSchemaProps } }>;
    };
    // @singular, @listKind and @subresource none survive the apiserver's defaulting
    expect(spec.names).toMatchObject({ singular: 'knob', listKind: 'KnobCollection' });
    expect(spec.versions[0]!.subresources).toEqual({});
    const validator = createValidator(
      JSON.parse(JSON.stringify(resourceToCrd(r!, { dropDescriptions: true }).spec.versions))[0].schema
        .openAPIV3Schema,
    );
    const valid = { color: 'red', label: 'a', level: 9, ratio: 4.75, note: null, target: 'k-1', code: 'ab' };
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['every marker satisfied (@nullable keeps null)', valid, true],
      ['@optional: level may be omitted', { color: 'red', label: 'a' }, true],
      ['@required: color may not be omitted', { label: 'a', level: 1 }, false],
      ['@enum', { ...valid, color: 'blue' }, false],
      ['@exclusiveMaximum 10 (10 itself)', { ...valid, level: 10 }, false],
      ['bare @exclusiveMaximum with @maximum 5', { ...valid, ratio: 5 }, false],
      ['@multipleOf 0.25', { ...valid, ratio: 0.3 }, false],
      ['@minProperties 2 on the spec', { color: 'red' }, false],
      ['@minProperties 1 on a field', { ...valid, selector: {} }, false],
      ['@atMostOneOf fast,slow', { ...valid, fast: 1, slow: 2 }, false],
      ['@atMostOneOf: one is fine', { ...valid, fast: 1 }, true],
      ['@atLeastOneOf label,selector', { color: 'red', level: 1 }, false],
      ['@atLeastOneOf: the other one is fine', { color: 'red', selector: { a: 'b' } }, true],
      ['@anyOf: neither member holds', { ...valid, target: 'ab' }, false],
      ['@anyOf: the second member holds', { ...valid, target: 'abcdef' }, true],
      ['@not', { ...valid, target: 'kknone' }, false],
      ['@allOf: the first member fails', { ...valid, code: 'a' }, false],
      ['@allOf: the second member fails', { ...valid, code: 'abcdefghi' }, false],
      ['@title, @example and @externalDocs do not constrain', { ...valid, label: 'anything at all' }, true],
    ];
    for (const [i, [what, s, expected]] of cases.entries()) {
      const obj = {
        apiVersion: 'markers.kubeloom.dev/v1',
        kind: 'Knob',
        metadata: { name: `k${i}`, namespace },
        spec: s,
      } as KubeObject;
      let accepted = true;
      let stored: KubeObject | undefined;
      try {
        stored = await kube.api.create(knob, obj, { dryRun: 'All' });
      } catch {
        accepted = false;
      }
      expect({ what, accepted }).toEqual({ what, accepted: expected });
      const mine = validator.validate(obj);
      expect({ what, valid: mine.valid, complete: mine.complete }).toEqual({
        what,
        valid: expected,
        complete: true,
      });
      // what the apiserver stores is the validator's pruned and defaulted object
      expect((stored as { spec?: unknown } | undefined)?.spec).toEqual(
        expected ? (mine.object as { spec?: unknown }).spec : undefined,
      );
    }
  });
});
