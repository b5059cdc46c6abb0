// Both directions report a rule kube-apiserver would reject for its estimated cost: TypeScript
// at the rule's marker, a CRD file at the schema node (the wording is the apiserver's, checked
// against it in cel-cost.integration.test.ts).
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { testOutputDir } from '../../../test/helpers.ts';
import { runCli } from '../../cli-main.ts';
import { CodegenError } from '../../codegen-error.ts';
import { readCrds } from '../../crd-reader.ts';
import { generateCrds } from '../../generate.ts';
import { PartialGenerationError } from '../../partial-generation-error.ts';

const dir = testOutputDir('resource-costs');

function tsIssues(
  name: string,
  spec: string,
): PartialGenerationError<ReturnType<typeof generateCrds>> | undefined {
  const file = path.join(dir, `${name}.ts`);
  writeFileSync(
    file,
    `/**\n * @group example.dev\n * @version v1\n */\nexport interface Thing {\n  apiVersion?: string;\n  kind?: string;\n  metadata?: object;\n  spec: Spec;\n}\n${spec}`,
  );
  try {
    generateCrds([file], { baseDir: dir });
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(PartialGenerationError);
    return e as PartialGenerationError<ReturnType<typeof generateCrds>>;
  }
}

const BUDGET =
  'exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

describe('rule cost issues', () => {
  it('TypeScript: a rule over the per-rule limit is reported at its marker, in the apiserver words', () => {
    const e = tsIssues(
      'unbounded',
      `export interface Spec {
  name?: string;
  /**
   * The ports.
   * @validation rule="self.all(x, self.all(y, x == y))"
   */
  ports: Port[];
}
/** @format int32 */
export type Port = number;
`,
    );
    const crd = 'kube-apiserver would reject CustomResourceDefinition things.example.dev: ';
    const rule =
      'spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-validations[0].rule';
    // as the apiserver does: the rule over its limit, and so the total over the CRD's
    expect(e?.issues.map((i) => [i.location?.line, i.message])).toEqual([
      [15, `${crd}${rule}: Forbidden: estimated rule cost ${BUDGET}`],
      [
        15,
        `${crd}${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      ],
      [
        5,
        `${crd}spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema ${BUDGET}`,
      ],
    ]);
    expect(e?.issues[0]?.location?.file).toBe('unbounded.ts');
    expect(e?.failedInputs).toEqual(['things.example.dev']);
    expect(e?.result.files).toEqual([]);
  });

  it('TypeScript: maxItems brings the same rule under the limit', () => {
    expect(
      tsIssues(
        'bounded',
        `export interface Spec {
  /**
   * @maxItems 100
   * @validation rule="self.all(x, self.all(y, x == y))"
   */
  ports: Port[];
}
/** @format int32 */
export type Port = number;
`,
      ),
    ).toBeUndefined();
  });

  it('TypeScript: a messageExpression over the limit is reported at its marker', () => {
    const e = tsIssues(
      'message',
      `export interface Spec {
  /**
   * @validation rule="self.size() < 3" messageExpression="self.map(x, self.map(y, x + y)).join(',')"
   */
  names: string[];
}
`,
    );
    const lines = e?.issues.map((i) => `${i.location?.line}: ${i.message.replace(/.*\.x-kubernetes/, '')}`);
    expect(lines).toContain(
      `13: -validations[0].messageExpression: Forbidden: estimated messageExpression cost ${BUDGET}`,
    );
  });

  it('CRD files: the rule is reported at its schema node', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.dev' },
      spec: {
        group: 'example.dev',
        names: { kind: 'Thing', plural: 'things' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      xs: {
                        type: 'array',
                        items: { type: 'string' },
                        'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists(y, x == y))' }],
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    let error: unknown;
    try {
      readCrds(stringify(crd), 'thing.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodegenError);
    const issue = (error as CodegenError).issues[0]!;
    expect(issue.message).toContain(
      'properties[xs].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost',
    );
    expect(issue.location?.file).toBe('thing.yaml');
    expect(issue.location?.line).toBeGreaterThan(1);
  });

  it('the CLI reports it with file and line, writes the other CRDs but not this one, and exits 1', () => {
    tsIssues(
      'cli',
      `export interface Spec {
  /** @validation rule="self.all(x, self.exists(y, x == y))" */
  names: string[];
}
/**
 * @group example.dev
 * @version v1
 */
export interface Other {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  /** @validation rule="self.size() < 10" */
  names: string[];
}
`,
    );
    let err = '';
    const code = runCli(['crd', 'cli.ts', '--out', 'cli-out'], {
      out: () => {},
      err: (l) => (err += l),
      cwd: dir,
    });
    expect(code).toBe(1);
    expect(err).toContain(
      'cli.ts:12:7: kube-apiserver would reject CustomResourceDefinition things.example.dev: spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget',
    );
    expect(existsSync(path.join(dir, 'cli-out', 'example.dev_things.yaml'))).toBe(false);
    expect(existsSync(path.join(dir, 'cli-out', 'example.dev_others.yaml'))).toBe(true);
    expect(err).toContain('things.example.dev not generated; the other files were written');
  });
});
