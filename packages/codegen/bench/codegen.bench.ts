/**
 * Code generation timings: CRD → TypeScript for the shared CRD corpus and TypeScript → CRD for a
 * generated 50-type package (validation throughput is `validator.bench.ts`). KUBELOOM_BENCH_SMOKE=1
 * runs tiny sizes.
 */
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crdsToYaml, readCrds, readTypeScript, resourcesToTypeScript, resourceToCrd } from '../src/index.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const corpus =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');
const rows: string[][] = [];

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

// 1. CRD YAML → TypeScript for the corpus
if (existsSync(corpus)) {
  const files = globSync('*/*.yaml', { cwd: corpus })
    .sort()
    .slice(0, smoke ? 3 : undefined);
  const texts = files.map((f) => [f, readFileSync(path.join(corpus, f), 'utf8')] as const);
  const bytes = texts.reduce((n, [, t]) => n + t.length, 0);
  const [models, parseMs] = time(() => texts.flatMap(([f, t]) => readCrds(t, f)));
  const [out, emitMs] = time(() => resourcesToTypeScript(models));
  rows.push([
    `CRD → TS, ${files.length} CRD files (${(bytes / 1e6).toFixed(2)} MB)`,
    `${parseMs.toFixed(0)} ms read`,
    `${emitMs.toFixed(0)} ms emit`,
    `${out.length} files`,
  ]);
} else {
  console.log(`(corpus absent at ${corpus}: CRD → TS row skipped)`);
}

// 2. TypeScript → CRD for a generated 50-type package
const n = smoke ? 5 : 50;
const dir = path.join(tmpdir(), `kubeloom-codegen-bench-${process.pid}`);
mkdirSync(dir, { recursive: true });
const files: string[] = [];
for (let i = 0; i < n; i++) {
  const file = path.join(dir, `kind${i}.ts`);
  writeFileSync(
    file,
    `/** @format int32 */
export type Int32_${i} = number;
/** Item ${i}. */
export interface Item${i} {
  /** @maxLength 63 */
  name: string;
  /** @minimum 0 */
  weight?: Int32_${i};
  mode?: 'A' | 'B' | 'C';
}
/**
 * Kind${i} is generated for the benchmark.
 *
 * @group bench${i % 5}.example.dev
 * @version v1
 * @subresource status
 * @printColumn name=Size type=integer jsonPath=.spec.size
 */
export interface Kind${i} {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  /** @validation rule="!has(self.min) || self.min <= self.size" message="min <= size" */
  spec: {
    /** @format int32 @minimum 1 */
    size: number;
    /** @format int32 */
    min?: number;
    labels?: Record<string, string>;
    /**
     * @listType map
     * @listMapKey name
     * @maxItems 16
     */
    items?: Item${i}[];
    at?: Date;
  };
  status?: { /** @format int64 */ observedGeneration?: number };
}
`,
  );
  files.push(file);
}
const [model, tsMs] = time(() => readTypeScript(files, { baseDir: dir }));
const [yaml, yamlMs] = time(() => crdsToYaml(model.resources.map((r) => resourceToCrd(r))));
rmSync(dir, { recursive: true, force: true });
rows.push([
  `TS → CRD, ${n}-type package`,
  `${tsMs.toFixed(0)} ms read (incl. tsc program)`,
  `${yamlMs.toFixed(0)} ms emit`,
  `${(yaml.length / 1024).toFixed(0)} KiB YAML`,
]);

console.log('| benchmark | time / rate | time / rate | notes |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
