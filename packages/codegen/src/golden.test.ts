import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileStrict, normalizeCrd, parseCrdYaml, testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds, generateTypes } from './generate.ts';
import { sortKeys } from './internal/sort-keys.ts';
import type { ResourceModel } from './ir.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

const testdata = path.join(import.meta.dirname, 'testdata');
const golden = path.join(testdata, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

function expectGolden(name: string, content: string): void {
  const file = path.join(golden, name);
  if (update) writeFileSync(file, content);
  expect(content, `golden ${name} differs; run with UPDATE_GOLDEN=1 to accept`).toBe(
    readFileSync(file, 'utf8'),
  );
}

/** The CRDs of resources, normalized (sorted keys, versions by name) for equivalence checks. */
function canonical(resources: readonly ResourceModel[]): unknown {
  return sortKeys(
    resources.map((r) => {
      const crd = resourceToCrd(r);
      (crd.spec.versions as Array<{ name: string }>).sort((a, b) => (a.name < b.name ? -1 : 1));
      return crd;
    }),
  );
}

describe('golden files', () => {
  it('TypeScript → CRD YAML and RBAC for the egress types', () => {
    const { files } = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata });
    expect(files.map((f) => f.path)).toEqual([
      'egress.example.dev_egressgatewaypolicies.yaml',
      'egress.example.dev_ipampools.yaml',
      'role.yaml',
    ]);
    for (const f of files) expectGolden(`egress-${f.path}`, f.content);
  });

  it('TypeScript → CRD YAML for the markers fixture (every marker the egress types do not use)', () => {
    const { files, model } = generateCrds([path.join(testdata, 'markers/types.ts')], { baseDir: testdata });
    expect(files.map((f) => f.path)).toEqual(['markers.kubeloom.dev_knobs.yaml']);
    expectGolden('markers-markers.kubeloom.dev_knobs.yaml', files[0]!.content);
    const r = model.resources[0]!;
    const root = r.versions[0]!.schema;
    const spec = root.properties!.spec!;
    const p = spec.properties!;
    // one expectation per marker
    expect(r.singular).toBe('knob'); // @singular
    expect(r.listKind).toBe('KnobCollection'); // @listKind
    expect(r.versions[0]!.explicitSubresources).toBe(true); // @subresource none
    expect(root.title).toBe('Knob'); // @title (type)
    expect(p.label).toMatchObject({ title: 'Label', example: 'primary' }); // @title (field), @example
    expect(p.color!.enum).toEqual(['red', 'green']); // @enum
    expect(spec.required).toEqual(['color']); // @required on an optional field, @optional on a required one
    expect(p.level).toMatchObject({ maximum: 10, exclusiveMaximum: true }); // @exclusiveMaximum n
    expect(p.ratio).toMatchObject({ maximum: 5, exclusiveMaximum: true, multipleOf: 0.25 }); // bare @exclusiveMaximum, @multipleOf
    expect(spec.minProperties).toBe(2); // @minProperties (type)
    expect(p.selector!.minProperties).toBe(1); // @minProperties (field)
    expect(p.note!.nullable).toBe(true); // @nullable
    expect(spec.validations!.map((v) => v.rule)).toEqual([
      '[has(self.fast),has(self.slow)].filter(x,x==true).size() <= 1', // @atMostOneOf
      '[has(self.label),has(self.selector)].filter(x,x==true).size() >= 1', // @atLeastOneOf
    ]);
    expect(p.target!.anyOf).toMatchObject([{ pattern: '^k-' }, { minLength: 6 }]); // @anyOf
    expect(p.target!.not).toMatchObject({ enum: ['kknone'] }); // @not
    expect(p.code!.allOf).toMatchObject([{ minLength: 2 }, { maxLength: 8 }]); // @allOf
    expect(spec.externalDocs).toEqual({ url: 'https://example.com/knobs', description: 'Knob reference' }); // @externalDocs
  });

  it('CRD YAML → TypeScript for the widget CRD', () => {
    const { files } = generateTypes([path.join(testdata, 'crds/widgets.yaml')], { baseDir: testdata });
    expect(files.map((f) => f.path)).toEqual([
      'test.kubeloom.dev/v1/index.ts',
      'test.kubeloom.dev/v1/widget.ts',
      'test.kubeloom.dev/v1beta1/index.ts',
      'test.kubeloom.dev/v1beta1/widget.ts',
    ]);
    for (const f of files) expectGolden(`widgets-${f.path.replaceAll('/', '_')}.txt`, f.content);
  });

  it('is deterministic: two runs give identical bytes', () => {
    const a = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata }).files;
    const b = generateCrds([path.join(testdata, 'egress/types.ts')], { baseDir: testdata }).files;
    expect(a).toEqual(b);
    const c = generateTypes([path.join(testdata, 'crds/widgets.yaml')], { baseDir: testdata }).files;
    const d = generateTypes([path.join(testdata, 'crds/widgets.yaml')], { baseDir: testdata }).files;
    expect(c).toEqual(d);
  });
});

describe('round trips', () => {
  it.each(['widgets.yaml', 'gadgets.yaml'])(
    'CRD → TS → CRD reproduces the original YAML (%s; only key and version order normalized)',
    (file) => {
      const text = readFileSync(path.join(testdata, 'crds', file), 'utf8');
      const dir = testOutputDir(`roundtrip-${file}`);
      const files = writeFiles(dir, resourcesToTypeScript(readCrds(text, file), { client: false })).filter(
        (f) => !f.endsWith('index.ts'),
      );
      const back = readTypeScript(files, { baseDir: dir }).resources.map((r) => resourceToCrd(r));
      expect(back.map(normalizeCrd)).toEqual(parseCrdYaml(text).map(normalizeCrd));
    },
  );

  it('keeps subresources: {} and spec.conversion, which the model carries explicitly', () => {
    const text = readFileSync(path.join(testdata, 'crds/widgets.yaml'), 'utf8')
      .replace(
        '      subresources:\n        status: {}\n        scale:\n          specReplicasPath: .spec.size\n          statusReplicasPath: .status.size\n',
        '      subresources: {}\n',
      )
      .replace('  scope: Namespaced\n', '  scope: Namespaced\n  conversion:\n    strategy: None\n');
    const original = parseCrdYaml(text);
    expect(
      (original[0]!.spec as { versions: Array<{ subresources?: unknown }> }).versions[0]!.subresources,
    ).toEqual({});
    const dir = testOutputDir('roundtrip-explicit');
    const files = writeFiles(dir, resourcesToTypeScript(readCrds(text, 'w.yaml'), { client: false })).filter(
      (f) => !f.endsWith('index.ts'),
    );
    expect(readFileSync(files.find((f) => f.includes('/v1/'))!, 'utf8')).toContain('@subresource none');
    const back = readTypeScript(files, { baseDir: dir }).resources.map((r) => resourceToCrd(r));
    expect(back.map(normalizeCrd)).toEqual(original.map(normalizeCrd));
  });

  it('normalizes only what the apiserver treats as absent or defaults, and ignores CRD status', () => {
    const text = readFileSync(path.join(testdata, 'crds/gadgets.yaml'), 'utf8')
      .replace('    listKind: GadgetList\n', '')
      .replace('    singular: gadget\n', '    shortNames: []\n')
      .replace('  scope: Namespaced\n', '  scope: Namespaced\n  preserveUnknownFields: false\n')
      .replace('      storage: true\n', '      storage: true\n      deprecated: false\n')
      .replace('metadata:\n  name: gadgets', 'metadata:\n  creationTimestamp: null\n  name: gadgets')
      .concat('status:\n  storedVersions: [v1]\n');
    const crd = resourceToCrd(readCrds(text, 'g.yaml')[0]!) as unknown as {
      metadata: Record<string, unknown>;
      spec: Record<string, unknown> & {
        names: Record<string, unknown>;
        versions: Array<Record<string, unknown>>;
      };
    };
    expect(crd.spec.names).toEqual({
      kind: 'Gadget',
      listKind: 'GadgetList',
      plural: 'gadgets',
      singular: 'gadget',
    });
    expect(crd.spec.preserveUnknownFields).toBeUndefined();
    expect(crd.spec.versions[0]!.deprecated).toBeUndefined();
    expect(crd.metadata).toEqual({ name: 'gadgets.test.kubeloom.dev' });
    expect(crd).not.toHaveProperty('status');
  });

  it('refuses CRD fields it would drop, naming the file and line', () => {
    const text = readFileSync(path.join(testdata, 'crds/widgets.yaml'), 'utf8').replace(
      '  scope: Namespaced',
      '  scope: Namespaced\n  frobnicate: true',
    );
    expect(() => readCrds(text, 'w.yaml')).toThrow(/w\.yaml:\d+:\d+: unknown field spec\.frobnicate/);
  });

  it.each(['egress', 'markers'])('TS → CRD → TS → CRD gives the same CRD (%s types)', (name) => {
    const first = readTypeScript([path.join(testdata, `${name}/types.ts`)]);
    const dir = testOutputDir(`roundtrip-${name}`);
    const files = writeFiles(dir, resourcesToTypeScript(first.resources, { client: false })).filter(
      (f) => !f.endsWith('index.ts'),
    );
    const second = readTypeScript(files, { baseDir: dir });
    expect(canonical(second.resources)).toEqual(canonical(first.resources));
  });

  it('generated TypeScript compiles under tsc --strict', () => {
    const dir = testOutputDir('compile-widgets');
    const text = readFileSync(path.join(testdata, 'crds/widgets.yaml'), 'utf8');
    const files = writeFiles(dir, resourcesToTypeScript(readCrds(text, 'widgets.yaml')));
    const usage = path.join(dir, 'usage.ts');
    writeFileSync(
      usage,
      [
        "import { type Widget, WidgetResource, WidgetValidator, createWidgetClient, type WidgetClient } from './test.kubeloom.dev/v1/index.ts';",
        "import { createWidgetClient as createOld } from './test.kubeloom.dev/v1beta1/index.ts';",
        "import type { KubeClient } from '@kubeloom/kube';",
        'export function clients(kube: KubeClient) {',
        '  const c: WidgetClient = createWidgetClient(kube, { fieldManager: "test" });',
        '  const old = createOld(kube);',
        '  // @ts-expect-error v1beta1 has no status subresource, so its client has no updateStatus',
        '  old.updateStatus;',
        '  // @ts-expect-error v1beta1 has no scale subresource, so its client has no getScale',
        '  old.getScale;',
        '  // @ts-expect-error v1beta1 has no scale subresource, so its client has no updateScale',
        '  old.updateScale;',
        '  const scaled: Promise<unknown> = c.updateScale({ name: "a", namespace: "ns" }, 3).then((s) => s.spec?.replicas);',
        '  return [c.updateStatus, c.getScale, scaled, c.get("a", "ns")?.spec?.size, old.get("a")?.spec?.size];',
        '}',
        "const w: Widget = { spec: { size: 3, color: 'red', port: 'http', mode: null, tags: ['a'] } };",
        'export const ok: boolean = WidgetValidator.validate(w).valid && WidgetResource.plural === "widgets";',
        "// @ts-expect-error color is a closed enum\nexport const bad: Widget = { spec: { size: 3, color: 'pink' } };",
      ].join('\n'),
    );
    expect(compileStrict([...files, usage])).toEqual([]);
  });
});
