import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles, corpusText } from '../test/corpus.ts';
import { compileStrict, normalizeCrd, parseCrdYaml, testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

// corpusFiles() throws when the corpus is absent: collection fails, so the suite fails.
const files = corpusFiles();
const models = new Map(files.map((f) => [f, readCrds(corpusText(f), f)]));

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
    '%s → TS → CRD reproduces the original YAML (only key and version order normalized)',
    (file) => {
      const original = parseCrdYaml(corpusText(file));
      const dir = testOutputDir(`corpus-rt/${path.basename(file, '.yaml')}`);
      const written = writeFiles(dir, resourcesToTypeScript(models.get(file)!, { client: false })).filter(
        (f) => !f.endsWith('index.ts'),
      );
      const back = readTypeScript(written, { baseDir: dir }).resources.map((r) => resourceToCrd(r));
      expect(back.map(normalizeCrd)).toEqual(original.map(normalizeCrd));
    },
    60_000,
  );
});
