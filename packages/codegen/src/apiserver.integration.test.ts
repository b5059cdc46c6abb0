import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CRDObject, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { corpusModels } from '../test/corpus.ts';
import { testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';
import type { ResourceModel } from './ir.ts';
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

/**
 * The models under an API group of this file's own (`roundtrip.<group>`). The control plane is
 * shared with every test file, and differential-validation and typed-client test the fixture and
 * corpus CRDs as written: the regenerated CRDs (descriptions dropped, so a new storage each) under
 * the same names would replace theirs while they run.
 */
function ownGroup(models: ResourceModel[]): ResourceModel[] {
  return models.map((r) => ({ ...r, group: `roundtrip.${r.group}` }));
}

const names = (models: ResourceModel[]) => models.map((r) => `${r.plural}.${r.group}`).sort();

describe('generated CRDs on a real kube-apiserver', () => {
  const egress = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata }).model
    .resources;
  const widgets = ['widgets.yaml', 'gadgets.yaml'].flatMap((f) =>
    readCrds(readFileSync(path.join(testdata, 'crds', f), 'utf8'), f),
  );

  it('accepts the CRDs generated from TypeScript and the fixture CRDs, and their TS round trips', async () => {
    const fixtures = [...egress, ...widgets];
    const regenerated = ownGroup(regenerate(fixtures, 'apply-fixtures'));
    for (const [set, expected] of [
      [fixtures, fixtures],
      [regenerated, ownGroup(fixtures)],
    ] as const) {
      const installed = await installCRDs(
        sharedControlPlane().kubeConfig,
        set.map((r) => resourceToCrd(r) as unknown as CRDObject),
      );
      expect(installed.map((c) => c.metadata.name).sort()).toEqual(names(expected));
    }
  });

  it('accepts every corpus CRD regenerated through TypeScript (CRD → TS → CRD)', async () => {
    const models = corpusModels();
    const regenerated = ownGroup(regenerate(models, 'apply-corpus'));
    expect(regenerated).toHaveLength(models.length);
    const installed = await installCRDs(
      sharedControlPlane().kubeConfig,
      regenerated.map((r) => resourceToCrd(r) as unknown as CRDObject),
      { timeoutMs: 60_000 },
    );
    expect(installed.map((c) => c.metadata.name).sort()).toEqual(names(ownGroup(models)));
  }, 180_000);
});
