// Issue 12 item 5: the generated types say what the schema says. An object with
// x-kubernetes-preserve-unknown-fields and declared properties is open (declared fields plus an
// index signature) and the compiler accepts undeclared fields there and nowhere else; a oneOf or
// anyOf of required-field sets is a union the compiler checks; descriptions keep their leading
// blank lines. Each case also round-trips CRD → TS → CRD exactly.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileStrict, normalizeCrd, parseCrdYaml, testOutputDir, writeFiles } from '../test/helpers.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { readTypeScript } from './ts-reader.ts';
import { resourcesToTypeScript } from './ts-writer.ts';

/** The schema both versions share (the second version's types are imported from the first). */
const SCHEMA = `      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            description: "\\n\\nA spec whose description starts with two blank lines.\\n  Indented line."
            type: object
            properties:
              config:
                description: Known settings; any other key is kept as it is.
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  mode:
                    type: string
                  replicas:
                    type: integer
              items:
                type: array
                items:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties:
                    name:
                      type: string
              strict:
                type: object
                properties:
                  name:
                    type: string
              source:
                type: object
                oneOf:
                - required:
                  - git
                - required:
                  - image
                properties:
                  git:
                    type: string
                  image:
                    type: string
                  pullPolicy:
                    type: string
              targets:
                type: array
                items:
                  type: object
                  anyOf:
                  - required:
                    - name
                  - required:
                    - selector
                  properties:
                    name:
                      type: string
                    selector:
                      type: string
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: plugins.faithful.kubeloom.dev
spec:
  group: faithful.kubeloom.dev
  names:
    kind: Plugin
    listKind: PluginList
    plural: plugins
    singular: plugin
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
${SCHEMA}  - name: v1beta1
    served: true
    storage: false
    schema:
${SCHEMA}`;

/** Generates the module and writes it. */
function generate(): { dir: string; module: string; files: string[] } {
  const dir = testOutputDir('faithful-types');
  const files = writeFiles(dir, resourcesToTypeScript(readCrds(CRD, 'plugins.yaml'), { client: false }));
  return { dir, module: files.find((f) => f.endsWith('v1/plugin.ts'))!, files };
}

describe('faithful generated types', () => {
  it('makes preserve-unknown-fields objects open and oneOf/anyOf of required fields unions the compiler checks', () => {
    const usage = `import type { Plugin } from './faithful.kubeloom.dev/v1/plugin.ts';
export const ok: Plugin = {
  apiVersion: 'faithful.kubeloom.dev/v1',
  kind: 'Plugin',
  metadata: { name: 'p' },
  spec: { config: { mode: 'fast', replicas: 2, extra: { any: ['thing'] } }, items: [{ name: 'a', other: 1 }] },
};
export const wrongDeclared: Plugin = {
  metadata: { name: 'p' },
  // @ts-expect-error a declared field keeps its type in an open object
  spec: { config: { replicas: 'two' } },
};
export const closed: Plugin = {
  metadata: { name: 'p' },
  // @ts-expect-error an object without preserve-unknown-fields stays closed
  spec: { strict: { name: 'a', extra: 1 } },
};
export const sources: Plugin[] = [
  { metadata: { name: 'git' }, spec: { source: { git: 'https://example.com/r.git', pullPolicy: 'Always' } } },
  { metadata: { name: 'image' }, spec: { source: { image: 'registry/x:1' }, targets: [{ name: 'a' }, { name: 'b', selector: 'c' }] } },
];
export const both: Plugin = {
  metadata: { name: 'p' },
  // @ts-expect-error oneOf: git and image together
  spec: { source: { git: 'x', image: 'y' } },
};
export const neither: Plugin = {
  metadata: { name: 'p' },
  // @ts-expect-error oneOf: neither git nor image
  spec: { source: { pullPolicy: 'Always' } },
};
export const noTarget: Plugin = {
  metadata: { name: 'p' },
  // @ts-expect-error anyOf: a target needs a name or a selector
  spec: { targets: [{}] },
};
const mode: string | undefined = ok.spec?.config?.mode;
const extra: unknown = ok.spec?.config?.extra;
export { extra, mode };
`;
    const { dir, module, files } = generate();
    const usageFile = path.join(dir, 'usage.ts');
    writeFileSync(usageFile, usage);
    expect(compileStrict([...files, usageFile])).toEqual([]);
    const text = readFileSync(module, 'utf8');
    expect(text).toMatch(/export interface PluginConfig \{[\s\S]*?\[key: string\]: unknown;\n\}/);
    expect(text).toMatch(/export interface PluginStrict \{\n[^[]*\}/);
    expect(text).toContain(
      `export type PluginSource = PluginSourceFields & ({ git: Exclude<PluginSourceFields["git"], undefined>; image?: never } | { image: Exclude<PluginSourceFields["image"], undefined>; git?: never });`,
    );
  });

  it('emits the types of a schema several versions share once', () => {
    const { files } = generate();
    const v1beta1 = readFileSync(files.find((f) => f.endsWith('v1beta1/plugin.ts'))!, 'utf8');
    expect(v1beta1).toContain(
      'export type { PluginConfig, PluginItemsItem, PluginSource, PluginSourceFields, PluginSpec, PluginStrict, PluginTargetsItem, PluginTargetsItemFields } from "../v1/plugin.ts";',
    );
    expect(v1beta1).toContain('import { PluginSchema } from "../v1/plugin.ts";');
    expect(v1beta1).not.toMatch(/export interface PluginSpec|export const PluginSchema/);
    expect(v1beta1).toMatch(/@version v1beta1[\s\S]*export interface Plugin \{/);
  });

  it('keeps leading blank lines of descriptions', () => {
    const { module } = generate();
    expect(readFileSync(module, 'utf8')).toContain(
      '  /**\n   *\n   *\n   * A spec whose description starts with two blank lines.\n   *   Indented line.\n',
    );
  });

  it('round-trips CRD → TS → CRD exactly', () => {
    const { dir, files } = generate();
    const modules = files.filter((f) => f.endsWith('plugin.ts'));
    const back = readTypeScript(modules, { baseDir: dir }).resources.map((r) => resourceToCrd(r));
    expect(back.map(normalizeCrd)).toEqual(parseCrdYaml(CRD).map(normalizeCrd));
  });
});
