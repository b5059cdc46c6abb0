// Generated typed clients on the real control plane: egress (TS → CRD), a Gateway API kind and a
// cert-manager kind (corpus CRD → TS), and a CRD with the scale subresource.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ObjectValidator } from '@kubeloom/codegen-runtime';
import {
  createKubeClient,
  defineResource,
  type KubeClient,
  type KubeObject,
  noopLogger,
  type ObjectKey,
} from '@kubeloom/kube';
import {
  type CRDObject,
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  waitFor,
} from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusText } from '../test/corpus.ts';
import { testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';
import type { ResourceModel } from './ir.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

const testdata = path.join(import.meta.dirname, 'testdata');

/** The generated client surface the test uses (the compile tests check the real types). */
interface GeneratedClient {
  create(o: KubeObject): Promise<KubeObject>;
  update(o: KubeObject): Promise<KubeObject>;
  updateStatus?(o: KubeObject): Promise<KubeObject>;
  delete(ref: ObjectKey): Promise<void>;
  get(name: string, namespace?: string): KubeObject | undefined;
  run(signal: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  getScale?(ref: ObjectKey): Promise<{ spec?: { replicas?: number }; status?: { replicas?: number } }>;
  updateScale?(ref: ObjectKey, replicas: number): Promise<{ spec?: { replicas?: number } }>;
}

type Module = Record<string, unknown>;

let kube: KubeClient;
let namespace: string;
const stop = new AbortController();
let modules: Map<string, Module>;

function resources(): ResourceModel[] {
  const egress = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata }).model
    .resources;
  const widgets = readCrds(readFileSync(path.join(testdata, 'crds/widgets.yaml'), 'utf8'), 'widgets.yaml');
  const corpus = [
    'gateway-api/gateway.networking.k8s.io_httproutes.yaml',
    'cert-manager/cert-manager.io_certificates.yaml',
  ].flatMap((f) => readCrds(corpusText(f), f));
  return [...egress, ...widgets, ...corpus];
}

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-client');
  const models = resources();
  await installCRDs(
    plane.kubeConfig,
    models.map((r) => resourceToCrd(r) as unknown as CRDObject),
    { timeoutMs: 60_000 },
  );
  const dir = testOutputDir('typed-client');
  writeFiles(dir, resourcesToTypeScript(models));
  modules = new Map();
  for (const r of models) {
    const v = r.versions.find((x) => x.storage)!;
    modules.set(r.kind, (await import(path.join(dir, r.group, v.name, 'index.ts'))) as Module);
  }
}, 120_000);

afterAll(() => {
  stop.abort();
  kube?.shutdown();
});

function client(kind: string): { c: GeneratedClient; validator: ObjectValidator<unknown> } {
  const mod = modules.get(kind)!;
  const make = mod[`create${kind}Client`] as (k: KubeClient, o?: object) => GeneratedClient;
  return {
    c: make(kube, { fieldManager: 'codegen-test' }),
    validator: mod[`${kind}Validator`] as ObjectValidator<unknown>,
  };
}

/** The writes of a {@link roundTrip} after the create. */
interface RoundTripWrites {
  /** Changes the cached object for the update (the spec, so that the generation moves). */
  readonly update: (o: KubeObject) => KubeObject;
  /** The status written through the status subresource. */
  readonly status: Record<string, unknown>;
}

/**
 * create → get from the informer cache → update → status (when declared) → delete, through the
 * generated client, checking the cache follows every write.
 */
async function roundTrip(
  kind: string,
  obj: KubeObject,
  { update: change, status }: RoundTripWrites,
): Promise<void> {
  const { c, validator } = client(kind);
  const name = obj.metadata!.name!;
  const ns = obj.metadata?.namespace;
  const local = validator.validate(obj);
  expect(local.errors).toEqual([]);
  expect(local.complete).toBe(true);
  void c.run(stop.signal);
  await waitFor(`${kind} informer synced`, () => c.hasSynced());
  const created = await c.create(obj);
  await waitFor(
    `${kind} ${name} in the cache`,
    () => c.get(name, ns)?.metadata?.resourceVersion === created.metadata?.resourceVersion,
  );
  const { managedFields: _, ...meta } = created.metadata!;
  expect(c.get(name, ns)).toEqual({ ...created, metadata: meta });
  const updated = await c.update(change(structuredClone(c.get(name, ns)!)));
  expect(updated.metadata?.generation).toBe(2);
  await waitFor(
    `${kind} ${name} update in the cache`,
    () => c.get(name, ns)?.metadata?.resourceVersion === updated.metadata?.resourceVersion,
  );
  expect((c.get(name, ns) as { spec?: unknown }).spec).toEqual((updated as { spec?: unknown }).spec);
  expect(c.updateStatus).toBeTypeOf('function');
  const next = { ...updated, status } as KubeObject;
  const withStatus = await c.updateStatus!(next);
  // the server stores the status the validator predicts (pruned and defaulted)
  expect((withStatus as { status?: unknown }).status).toEqual(
    (validator.validate(next).object as { status?: unknown }).status,
  );
  expect(validator.validate(withStatus).errors).toEqual([]);
  await waitFor(
    `${kind} ${name} status in the cache`,
    () => c.get(name, ns)?.metadata?.resourceVersion === withStatus.metadata?.resourceVersion,
  );
  await c.delete({ name, namespace: ns });
  await waitFor(`${kind} ${name} gone from the cache`, () => c.get(name, ns) === undefined);
}

describe('generated typed clients on a real kube-apiserver', () => {
  it('EgressGatewayPolicy (TypeScript → CRD → TypeScript): create, cache, update, status, delete', async () => {
    await roundTrip(
      'EgressGatewayPolicy',
      {
        apiVersion: 'egress.example.dev/v1alpha1',
        kind: 'EgressGatewayPolicy',
        metadata: { name: 'p1', namespace },
        spec: {
          podSelector: { matchLabels: { app: 'web' } },
          ipamPoolRef: { name: 'pool' },
          requestedIPs: ['192.0.2.1'],
        },
      } as KubeObject,
      {
        update: (o) =>
          ({
            ...o,
            spec: { ...(o as { spec: object }).spec, ipCount: 2, requestedIPs: ['192.0.2.1', '192.0.2.2'] },
          }) as KubeObject,
        status: { egressIPs: ['192.0.2.1'], readyReplicas: 0 },
      },
    );
  });

  it('HTTPRoute (Gateway API corpus CRD → TypeScript): create, cache, update, status, delete', async () => {
    await roundTrip(
      'HTTPRoute',
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'route', namespace },
        spec: { parentRefs: [{ name: 'gw' }], hostnames: ['example.com'] },
      } as KubeObject,
      {
        update: (o) =>
          ({
            ...o,
            spec: { ...(o as { spec: object }).spec, hostnames: ['example.com', 'www.example.com'] },
          }) as KubeObject,
        status: {
          parents: [
            {
              parentRef: { name: 'gw' },
              controllerName: 'example.com/gateway-controller',
              conditions: [
                {
                  type: 'Accepted',
                  status: 'True',
                  reason: 'Accepted',
                  message: '',
                  lastTransitionTime: '2024-01-01T00:00:00Z',
                  observedGeneration: 2,
                },
              ],
            },
          ],
        },
      },
    );
  });

  it('Certificate (cert-manager corpus CRD → TypeScript): create, cache, update, status, delete', async () => {
    await roundTrip(
      'Certificate',
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: 'cert', namespace },
        spec: { secretName: 'cert-tls', issuerRef: { name: 'ca' }, dnsNames: ['example.com'] },
      } as KubeObject,
      {
        update: (o) =>
          ({
            ...o,
            spec: { ...(o as { spec: object }).spec, dnsNames: ['example.com', 'www.example.com'] },
          }) as KubeObject,
        status: {
          conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting' }],
          revision: 1,
        },
      },
    );
  });

  it('Widget (a CRD with the scale subresource): getScale and updateScale through the generated client', async () => {
    const { c } = client('Widget');
    expect(c.getScale).toBeTypeOf('function');
    await c.create({
      apiVersion: 'test.kubeloom.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace },
      spec: { size: 2, color: 'red', name: 'w-1' },
    } as KubeObject);
    const scale = await c.getScale!({ name: 'w1', namespace });
    expect(scale.spec?.replicas).toBe(2);
    const scaled = await c.updateScale!({ name: 'w1', namespace }, 5);
    expect(scaled.spec?.replicas).toBe(5);
    const WidgetResource = defineResource<KubeObject & { spec: { size: number } }>({
      group: 'test.kubeloom.dev',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
    const current = await kube.api.get({ resource: WidgetResource, name: 'w1', namespace });
    expect(current.spec.size).toBe(5);
    await c.updateStatus!({ ...current, status: { size: 4, phase: 'Ready' } } as KubeObject);
    expect((await c.getScale!({ name: 'w1', namespace })).status?.replicas).toBe(4);
    await c.delete({ name: 'w1', namespace });
  });
});
