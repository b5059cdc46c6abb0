import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileStrict, testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd, sortKeys } from './crd-writer.ts';
import type { ResourceModel } from './ir.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

/** The shared CRD corpus (Gateway API, cert-manager, egressgateway): $KUBELOOM_CRD_CORPUS or ../shared/crds. */
export const CORPUS =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');
const present = existsSync(CORPUS);

function canonical(resources: readonly ResourceModel[]): unknown {
  return sortKeys(
    resources.map((r) => {
      const crd = resourceToCrd(r);
      (crd.spec.versions as Array<{ name: string }>).sort((a, b) => (a.name < b.name ? -1 : 1));
      return crd;
    }),
  );
}

if (!present) {
  describe('CRD corpus', () => {
    it('is present', () => {
      throw new Error(
        `the shared CRD corpus ${CORPUS} is absent: copy ../shared beside the repository or set KUBELOOM_CRD_CORPUS`,
      );
    });
  });
} else {
  const files = globSync('*/*.yaml', { cwd: CORPUS }).sort();
  const models = new Map(files.map((f) => [f, readCrds(readFileSync(path.join(CORPUS, f), 'utf8'), f)]));

  describe('CRD corpus', () => {
    it('has the expected CRDs', () => {
      expect(files.length).toBeGreaterThanOrEqual(23);
    });

    it('generates TypeScript for every CRD that compiles under tsc --strict, with typed clients', () => {
      const dir = testOutputDir('corpus-compile');
      const all = [...models.values()].flat();
      const written = writeFiles(dir, resourcesToTypeScript(all));
      const errors = compileStrict(written);
      expect(errors.slice(0, 20)).toEqual([]);
    }, 240_000);

    it.each(files)(
      '%s → TS → CRD regenerates an equivalent CRD',
      (file) => {
        const original = models.get(file)!;
        const dir = testOutputDir(`corpus-rt/${path.basename(file, '.yaml')}`);
        const written = writeFiles(dir, resourcesToTypeScript(original, { client: false })).filter(
          (f) => !f.endsWith('index.ts'),
        );
        const back = readTypeScript(written, { baseDir: dir });
        expect(canonical(back.resources)).toEqual(canonical(original));
      },
      60_000,
    );
  });
}
