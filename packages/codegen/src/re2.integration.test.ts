// RE2 against kube-apiserver: patterns JavaScript's RegExp lacks or reads differently are accepted
// by the apiserver, by codegen and by the validator, and the validator matches the strings the
// apiserver matches (schema `pattern` and CEL `matches`, dryRun=All); patterns RE2 rejects are
// rejected by the apiserver and by codegen, with the same message.
import { compileRe2, createValidator, type JsonSchemaProps, Re2SyntaxError } from '@kubeloom/codegen-runtime';
import {
  type ApiError,
  builtins,
  createKubeClient,
  type KubeClient,
  type KubeObject,
  noopLogger,
} from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CodegenError } from './codegen-error.ts';
import { readCrds } from './crd-reader.ts';

const GROUP = 're2.kubeloom.dev';
const PROBE = {
  group: GROUP,
  version: 'v1',
  kind: 'Re2Probe',
  plural: 're2probes',
  namespaced: true,
} as const;

/** Valid RE2 (much of it not valid JavaScript), with strings to try: each is matched or not. */
const VALID: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['^(?i)(abort|warn)?$', ['ABORT', 'Warn', '', 'abortx']],
  ['^a(?i)b|c$', ['aB', 'C', 'xc', 'AB']],
  ['^(?i:ab)c$', ['ABc', 'ABC']],
  ['^x(?i:[[:lower:]]+|k)y$', ['xABcy', 'x\u212Ay', 'XAy']],
  ['^(?U)a+$', ['aaa', 'b']],
  ['^a(?s).b$', ['a\nb', 'axb']],
  ['^a.b$', ['axb', 'a\nb']],
  ['(?m)^b$', ['a\nb\nc', 'ab']],
  ['^a\\z', ['a', 'a\n']],
  ['\\Aa', ['ab', 'ba']],
  ['^\\Qa.b\\E$', ['a.b', 'axb']],
  ['^[[:alpha:]]+$', ['abc', 'ab1']],
  ['^\\pL+$', ['é日本', 'a1']],
  ['^\\p{Greek}+$', ['αβ', 'a']],
  ['^(?P<name>x)(?<other>y)$', ['xy', 'x']],
  ['^.$', ['😀', 'ab']],
  ['^\\x{1F600}$', ['😀', 'x']],
  ['^a{,3}$', ['a{,3}', 'aaa']],
  ['^[^a]$', ['😀', 'a']],
  ['^\\w+$', ['é', 'ab_1']],
  ['^\\s$', ['\u00a0', ' ']],
];

/** JavaScript syntax RE2 rejects. */
const INVALID = ['(?=a)', 'a(?!b)', '(?<=a)b', '(a)\\1', 'a++', '\\C', 'x{1001}'];

const probeSchema = (): JsonSchemaProps => {
  const properties: Record<string, JsonSchemaProps> = {};
  for (const [i, [pattern]] of VALID.entries()) {
    properties[`p${i}`] = { type: 'string', pattern };
    properties[`c${i}`] = {
      type: 'string',
      'x-kubernetes-validations': [{ rule: `self.matches(${JSON.stringify(pattern)})`, message: 'no match' }],
    };
  }
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', properties },
    },
  };
};

const crd = (name: string, schema: JsonSchemaProps): CRDObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${name}s.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: name === 're2probe' ? 'Re2Probe' : 'Bad', plural: `${name}s` },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema as never } }],
  },
});

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-re2');
  await installCRDs(plane.kubeConfig, [crd('re2probe', probeSchema())]);
});

afterAll(() => kube?.shutdown());

async function serverAccepts(spec: Record<string, unknown>, name: string): Promise<boolean> {
  const obj = { apiVersion: `${GROUP}/v1`, kind: 'Re2Probe', metadata: { name, namespace }, spec };
  try {
    await kube.api.create(PROBE, obj as KubeObject, { dryRun: 'All' });
    return true;
  } catch (e) {
    if ((e as ApiError).causes?.length) return false;
    throw e;
  }
}

describe('RE2 against kube-apiserver', () => {
  it('codegen accepts every pattern the apiserver accepted', () => {
    const yaml = stringify(crd('re2probe', probeSchema()));
    expect(() => readCrds(yaml, 're2probe.yaml')).not.toThrow();
  });

  it('the validator matches what the apiserver matches, in schema patterns and CEL matches()', async () => {
    const validator = createValidator(probeSchema());
    const rows: string[] = [];
    let n = 0;
    for (const [i, [pattern, inputs]] of VALID.entries()) {
      for (const input of inputs) {
        for (const field of [`p${i}`, `c${i}`]) {
          const spec = { [field]: input };
          const server = await serverAccepts(spec, `probe-${n++}`);
          const mine = validator.validate({
            apiVersion: `${GROUP}/v1`,
            kind: 'Re2Probe',
            metadata: {},
            spec,
          });
          expect(mine.complete, `${field} ${pattern}`).toBe(true);
          rows.push(
            `${field} ${JSON.stringify(pattern)} ${JSON.stringify(input)}: apiserver ${server}, validator ${mine.valid}`,
          );
          if (server !== mine.valid) rows.push('  ^ DISAGREE');
        }
      }
    }
    console.log(`RE2 verdicts (${n} samples):\n${rows.join('\n')}`);
    expect(rows.filter((r) => r.includes('DISAGREE'))).toEqual([]);
    // Both verdicts occur: the samples can fail.
    expect(rows.some((r) => r.includes('apiserver true'))).toBe(true);
    expect(rows.some((r) => r.includes('apiserver false'))).toBe(true);
  });

  it.each(INVALID)('rejects %s as the apiserver does, with its message', async (pattern) => {
    let expected = '';
    try {
      compileRe2(pattern);
    } catch (e) {
      expect(e).toBeInstanceOf(Re2SyntaxError);
      expected = `must be a valid regular expression, but isn't: ${(e as Error).message}`;
    }
    expect(expected).not.toBe('');
    const bad = crd('bad', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { x: { type: 'string', pattern } } } },
    });
    let server = '';
    try {
      await kube.api.create(builtins.CustomResourceDefinition, bad as never, { dryRun: 'All' });
    } catch (e) {
      server = (e as Error).message;
    }
    expect(server).toContain(expected);
    let codegen = '';
    try {
      readCrds(stringify(bad), 'bad.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(CodegenError);
      codegen = (e as Error).message;
    }
    expect(codegen).toContain(expected);
  });
});
