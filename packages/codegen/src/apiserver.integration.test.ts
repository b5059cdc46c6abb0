import { existsSync, globSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createKubeClient, type KubeClient, noopLogger, type ResourceDescriptor } from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testOutputDir, writeFiles } from '../test/helpers.ts';
import { mutations, synthesize } from '../test/samples.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';
import type { ResourceModel } from './ir.ts';
import { createValidator } from './runtime/validator.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

const testdata = path.join(import.meta.dirname, 'testdata');
const CORPUS =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');

function corpusModels(): ResourceModel[] {
  if (!existsSync(CORPUS)) {
    expect(process.env.CI, 'under CI the CRD corpus must be present').not.toBe('true');
    console.warn(`corpus part did NOT run: ${CORPUS} is absent`);
    return [];
  }
  return globSync('*/*.yaml', { cwd: CORPUS })
    .sort()
    .flatMap((f) => readCrds(readFileSync(path.join(CORPUS, f), 'utf8'), f));
}

/** CRD → TS → CRD: the CRDs as the TypeScript front end regenerates them. */
function regenerate(models: ResourceModel[], name: string): ResourceModel[] {
  const dir = testOutputDir(name);
  const files = writeFiles(dir, resourcesToTypeScript(models, { client: false })).filter(
    (f) => !f.endsWith('index.ts'),
  );
  return readTypeScript(files, { baseDir: dir }).resources;
}

function descriptor(r: ResourceModel, version: string): ResourceDescriptor {
  return { group: r.group, version, kind: r.kind, plural: r.plural, namespaced: r.scope === 'Namespaced' };
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
    if (models.length === 0) return;
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

  it('differential validation: the runtime validator and the apiserver agree on accept/reject', async () => {
    const models = [...egress, ...widgets, ...corpusModels()];
    let total = 0;
    let agree = 0;
    let unevaluated = 0;
    let accepted = 0;
    const disagreements: string[] = [];
    const perCrd: Record<string, { samples: number; agree: number }> = {};
    for (const r of models) {
      const v = r.versions.find((x) => x.storage)!;
      const schema = JSON.parse(
        JSON.stringify(resourceToCrd(r, { dropDescriptions: true }).spec.versions),
      ).find((x: { name: string }) => x.name === v.name).schema.openAPIV3Schema;
      const validator = createValidator(schema);
      const spec = synthesize(schema);
      const base = {
        ...(spec as Record<string, unknown>),
        apiVersion: `${r.group}/${v.name}`,
        kind: r.kind,
        metadata: { name: 'x', ...(r.scope === 'Namespaced' ? { namespace } : {}) },
      };
      const samples = mutations(base, schema, 80);
      const stats = { samples: 0, agree: 0 };
      for (const [i, sample] of samples.entries()) {
        const obj = { ...sample.object, metadata: { ...(sample.object.metadata as object), name: `s${i}` } };
        const mine = validator.validate(obj);
        let server = true;
        let reason = '';
        try {
          await kube.api.create(descriptor(r, v.name), obj, { dryRun: 'All' });
        } catch (e) {
          server = false;
          reason = (e as Error).message;
        }
        total++;
        if (server) accepted++;
        stats.samples++;
        if (mine.notEvaluated.length > 0) unevaluated++;
        if (mine.valid === server) {
          agree++;
          stats.agree++;
        } else {
          disagreements.push(
            `${r.kind} ${sample.label}: validator ${mine.valid ? 'accepts' : `rejects (${mine.errors.map((x) => `${x.path}: ${x.message}`).join('; ')})`}` +
              `${mine.notEvaluated.length ? ` [${mine.notEvaluated.length} rule(s) not evaluated client-side]` : ''}, apiserver ${server ? 'accepts' : `rejects (${reason.slice(0, 300)})`}`,
          );
        }
      }
      perCrd[`${r.plural}.${r.group}`] = stats;
    }
    const rate = agree / total;
    const report = { total, agree, rate, accepted, unevaluated, perCrd, disagreements };
    writeFileSync(path.join(testOutputDir('differential'), 'report.json'), JSON.stringify(report, null, 2));
    console.log(
      `differential validation: ${agree}/${total} agree (${(rate * 100).toFixed(1)}%; apiserver accepted ${accepted}, rejected ${total - accepted}), ${unevaluated} samples had rules not evaluated client-side`,
    );
    for (const d of disagreements.slice(0, 30)) console.log(`  disagreement: ${d}`);
    expect(total).toBeGreaterThan(100);
    expect(rate).toBeGreaterThanOrEqual(0.97);
  }, 300_000);
});
