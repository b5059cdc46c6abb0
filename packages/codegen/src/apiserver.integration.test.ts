import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusModels } from '../test/corpus.ts';
import { testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';
import type { ResourceModel } from './ir.ts';
import type { createValidator } from './runtime/validator.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

const testdata = path.join(import.meta.dirname, 'testdata');

/** CRD → TS → CRD: the CRDs as the TypeScript front end regenerates them. */
function regenerate(models: ResourceModel[], name: string): ResourceModel[] {
  const dir = testOutputDir(name);
  const files = writeFiles(dir, resourcesToTypeScript(models, { client: false })).filter(
    (f) => !f.endsWith('index.ts'),
  );
  return readTypeScript(files, { baseDir: dir }).resources;
}

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen');
});

afterAll(() => kube?.shutdown());

describe('generated CRDs on a real kube-apiserver', () => {
  const egress = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata }).model
    .resources;
  const widgets = readCrds(readFileSync(path.join(testdata, 'crds/widgets.yaml'), 'utf8'), 'widgets.yaml');

  it('accepts the CRDs generated from TypeScript, and objects round-trip through the generated typed client', async () => {
    const { kubeConfig } = sharedControlPlane();
    await installCRDs(
      kubeConfig,
      [...egress, ...widgets].map((r) => resourceToCrd(r) as unknown as CRDObject),
    );
    const dir = testOutputDir('typed-client');
    writeFiles(dir, resourcesToTypeScript([...egress, ...widgets]));
    const mod = (await import(path.join(dir, 'egress.example.dev/v1alpha1/index.ts'))) as Record<
      string,
      unknown
    >;
    const newPolicyClient = mod.newEgressGatewayPolicyClient as (
      k: KubeClient,
      o?: object,
    ) => {
      create(o: object): Promise<Record<string, unknown>>;
      updateStatus(o: object): Promise<Record<string, unknown>>;
    };
    const client = newPolicyClient(kube, { fieldManager: 'codegen-test' });
    const created = await client.create({
      apiVersion: 'egress.example.dev/v1alpha1',
      kind: 'EgressGatewayPolicy',
      metadata: { name: 'p1', namespace },
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        ipamPoolRef: { name: 'pool' },
        requestedIPs: ['192.0.2.1'],
      },
    });
    expect(created.spec).toEqual({
      podSelector: { matchLabels: { app: 'web' } },
      ipamPoolRef: { name: 'pool' },
      requestedIPs: ['192.0.2.1'],
      ipCount: 1,
    });
    const withStatus = await client.updateStatus({
      ...created,
      status: { egressIPs: ['192.0.2.1'], readyReplicas: 0 },
    });
    expect(withStatus.status).toEqual({ egressIPs: ['192.0.2.1'], readyReplicas: 0 });
    const validator = (mod.EgressGatewayPolicyValidator as ReturnType<typeof createValidator>).validate(
      created,
    );
    expect(validator.errors).toEqual([]);
  });

  it('accepts every corpus CRD regenerated through TypeScript (CRD → TS → CRD)', async () => {
    const models = corpusModels();
    const regenerated = regenerate(models, 'apply-corpus');
    expect(regenerated).toHaveLength(models.length);
    const installed = await installCRDs(
      sharedControlPlane().kubeConfig,
      regenerated.map((r) => resourceToCrd(r) as unknown as CRDObject),
      { timeoutMs: 60_000 },
    );
    expect(installed.map((c) => c.metadata.name).sort()).toEqual(
      models.map((r) => `${r.plural}.${r.group}`).sort(),
    );
  }, 180_000);
});
