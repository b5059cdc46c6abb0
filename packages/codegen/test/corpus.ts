// The shared CRD corpus (Gateway API, cert-manager, egressgateway). Its absence is a failure.
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readCrds } from '../src/crd-reader.ts';
import type { ResourceModel } from '../src/ir.ts';

/** The corpus directory: $KUBELOOM_CRD_CORPUS or ../shared/crds beside the repository. */
const CORPUS =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');

/** The corpus files (`<project>/<file>.yaml`), sorted. Throws when the corpus is absent. */
export function corpusFiles(): string[] {
  if (!existsSync(CORPUS)) {
    throw new Error(
      `the shared CRD corpus ${CORPUS} is absent: copy ../shared beside the repository or set KUBELOOM_CRD_CORPUS`,
    );
  }
  const files = globSync('*/*.yaml', { cwd: CORPUS }).sort();
  if (files.length === 0) throw new Error(`the shared CRD corpus ${CORPUS} has no */*.yaml files`);
  return files;
}

/** The text of one corpus file. */
export function corpusText(file: string): string {
  return readFileSync(path.join(CORPUS, file), 'utf8');
}

/** Every corpus CRD, read into the model. Throws when the corpus is absent. */
export function corpusModels(): ResourceModel[] {
  return corpusFiles().flatMap((f) => readCrds(corpusText(f), f));
}
