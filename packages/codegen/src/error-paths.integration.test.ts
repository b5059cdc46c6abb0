// Error paths against kube-apiserver: for map entries (under OpenAPI, CEL, list-type and
// embedded-resource checks), list items by index and list-map entries, the runtime validator reports
// the same field paths as the apiserver (dryRun=All), sample by sample.

import { createValidator } from '@kubeloom/codegen-runtime';
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
import { ERROR_PATH_SAMPLES, ERROR_PATH_SCHEMA } from '../test/error-path-samples.ts';

const GROUP = 'paths.kubeloom.dev';
const PROBE: ResourceDescriptor = {
  group: GROUP,
  version: 'v1',
  kind: 'PathProbe',
  plural: 'pathprobes',
  namespaced: true,
};

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-paths');
  const crd: CRDObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `pathprobes.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'PathProbe', plural: 'pathprobes' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: ERROR_PATH_SCHEMA } }],
    },
  };
  await installCRDs(plane.kubeConfig, [crd]);
});

afterAll(() => kube?.shutdown());

interface Reported {
  readonly path: string;
  readonly message: string;
}

/** The causes of the apiserver's rejection, sorted by path (`[]` when it accepts). */
async function serverErrors(spec: Record<string, unknown>, name: string): Promise<Reported[]> {
  const obj = { apiVersion: `${GROUP}/v1`, kind: 'PathProbe', metadata: { name, namespace }, spec };
  try {
    await kube.api.create(PROBE, obj as KubeObject, { dryRun: 'All' });
    return [];
  } catch (e) {
    const causes = (e as ApiError).causes ?? [];
    if (causes.length === 0) throw e;
    return causes
      .map((c) => ({ path: c.field ?? '', message: c.message ?? '' }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

describe('error paths against kube-apiserver', () => {
  const validator = createValidator(ERROR_PATH_SCHEMA);

  it('agree for map entries, list items by index and list-map entries', async () => {
    const rows: Array<{ label: string; server: Reported[]; mine: Reported[] }> = [];
    for (const [i, s] of ERROR_PATH_SAMPLES.entries()) {
      const mine = validator
        .validate({ apiVersion: `${GROUP}/v1`, kind: 'PathProbe', metadata: { name: 'x' }, spec: s.spec })
        .errors.map((e) => ({ path: e.path, message: e.message }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      rows.push({ label: s.label, server: await serverErrors(s.spec, `probe-${i}`), mine });
    }
    const show = (xs: Reported[]) => xs.map((x) => `${x.path}: ${x.message}`).join('\n      ');
    console.log(
      [
        'error paths (apiserver, then validator):',
        ...rows.map((r) => `  ${r.label}:\n    apiserver ${show(r.server)}\n    validator ${show(r.mine)}`),
      ].join('\n'),
    );
    for (const r of rows) expect(r.server, r.label).not.toEqual([]);
    const paths = (xs: Reported[]) => xs.map((x) => x.path);
    expect(rows.map((r) => ({ label: r.label, paths: paths(r.mine) }))).toEqual(
      rows.map((r) => ({ label: r.label, paths: paths(r.server) })),
    );
  });

  it('agree on the messages, word for word', async () => {
    const mismatches: string[] = [];
    for (const [i, s] of ERROR_PATH_SAMPLES.entries()) {
      const mine = validator
        .validate({ apiVersion: `${GROUP}/v1`, kind: 'PathProbe', metadata: { name: 'x' }, spec: s.spec })
        .errors.map((e) => `${e.path}: ${e.message}`)
        .sort();
      const server = (await serverErrors(s.spec, `message-${i}`))
        .map((x) => `${x.path}: ${x.message}`)
        .sort();
      if (JSON.stringify(mine) !== JSON.stringify(server))
        mismatches.push(
          `${s.label}:\n  apiserver ${server.join('\n            ')}\n  validator ${mine.join('\n            ')}`,
        );
    }
    expect(mismatches).toEqual([]);
  });
});
