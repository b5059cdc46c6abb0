import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testOutputDir } from '../test/helpers.ts';
import { CodegenError } from './codegen-error.ts';
import type { SchemaNode } from './ir.ts';
import { readTypeScript } from './ts-reader.ts';

const dir = testOutputDir('ts-reader');
let n = 0;

function source(text: string): string {
  const file = path.join(dir, `case${++n}.ts`);
  writeFileSync(file, text);
  return file;
}

const HEAD = `/**
 * @group example.dev
 * @version v1
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  spec: Spec;
}
`;

function spec(body: string, extra = ''): SchemaNode {
  const model = readTypeScript([source(`${HEAD}export interface Spec {\n${body}\n}\n${extra}`)], {
    baseDir: dir,
  });
  return model.resources[0]!.versions[0]!.schema.properties!.spec!;
}

function errors(body: string, extra = ''): string {
  try {
    readTypeScript([source(`${HEAD}export interface Spec {\n${body}\n}\n${extra}`)], { baseDir: dir });
  } catch (e) {
    expect(e).toBeInstanceOf(CodegenError);
    return (e as Error).message;
  }
  throw new Error('expected a CodegenError');
}

describe('readTypeScript: type mapping', () => {
  it('maps strings, integers, floats, booleans, optional fields and defaults', () => {
    const s = spec(`
  name: string;
  /** @format int32 */
  replicas?: number;
  /** @float */
  ratio?: number;
  /** @integer */
  count: number;
  enabled?: boolean | undefined;`);
    expect(s.required).toEqual(['name', 'count']);
    expect(s.properties!.replicas).toMatchObject({ type: 'integer', format: 'int32' });
    expect(s.properties!.ratio).toMatchObject({ type: 'number' });
    expect(s.properties!.count).toMatchObject({ type: 'integer' });
    expect(s.properties!.count!.format).toBeUndefined();
    expect(s.properties!.enabled).toMatchObject({ type: 'boolean' });
  });

  it('maps literal unions to enums, null to nullable, Date to date-time, maps and nested shared types', () => {
    const s = spec(
      `
  mode: 'Fast' | 'Slow';
  level?: 1 | 2 | 3 | null;
  at?: Date;
  labels?: Record<string, string>;
  extra?: { [key: string]: Ref };
  a: Ref;
  b: Ref[];`,
      `/** A reference. */
export interface Ref {
  /** @maxLength 5 */
  name: string;
}`,
    );
    expect(s.properties!.mode).toMatchObject({ type: 'string', enum: ['Fast', 'Slow'] });
    expect(s.properties!.level).toMatchObject({ type: 'integer', enum: [1, 2, 3, null], nullable: true });
    expect(s.properties!.at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(s.properties!.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(s.properties!.extra!.additionalProperties).toMatchObject({ type: 'object', required: ['name'] });
    expect(s.properties!.a).toMatchObject({
      description: 'A reference.',
      properties: { name: { maxLength: 5 } },
    });
    expect(s.properties!.b!.items).toMatchObject({ properties: { name: { maxLength: 5 } } });
  });

  it('applies alias markers wherever the alias is used, field markers on top', () => {
    const s = spec(
      `
  a: Port;
  /** @maximum 1000 */
  b: Port;
  /**
   * @items.maxLength 3
   * @listType set
   */
  tags: string[];`,
      `/**
 * @format int32
 * @minimum 1
 * @maximum 65535
 */
export type Port = number;`,
    );
    expect(s.properties!.a).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, maximum: 65535 });
    expect(s.properties!.b).toMatchObject({ maximum: 1000, minimum: 1 });
  });

  it('maps number | string with @intOrString, unknown with @preserveUnknownFields, intersections and object unions', () => {
    const s = spec(
      `
  /** @intOrString */
  port: number | string;
  /** @preserveUnknownFields */
  config?: unknown;
  /** @preserveUnknownFields */
  raw?: Record<string, unknown>;
  both: A & B;
  either: ByName | ByLabel;
  tagged: Cat | Dog;`,
      `export interface A { a: string }
export interface B { b?: string }
export interface ByName { name: string }
export interface ByLabel { label: string }
export interface Cat { kind: 'Cat'; meows: boolean }
export interface Dog { kind: 'Dog'; barks: boolean }`,
    );
    expect(s.properties!.port).toMatchObject({
      intOrString: true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    expect(s.properties!.config).toMatchObject({ preserveUnknownFields: true });
    expect(s.properties!.config!.type).toBeUndefined();
    expect(s.properties!.raw).toMatchObject({ type: 'object', preserveUnknownFields: true });
    expect(s.properties!.both).toMatchObject({ required: ['a'], properties: { a: {}, b: {} } });
    expect(s.properties!.either!.validations![0]!.rule).toBe(
      '[has(self.name),has(self.label)].filter(x,x==true).size() == 1',
    );
    expect(s.properties!.tagged!.properties!.kind).toMatchObject({ enum: ['Cat', 'Dog'] });
    expect(s.properties!.tagged!.validations!.map((v) => v.rule)).toEqual([
      'self.kind != "Cat" || (has(self.meows) && !has(self.barks))',
      'self.kind != "Dog" || (has(self.barks) && !has(self.meows))',
    ]);
  });

  it('turns CEL sugar into rules and reads resource markers and RBAC', () => {
    const model = readTypeScript(
      [
        source(`/**
 * @group example.dev
 * @version v2
 * @scope Cluster
 * @shortName pol
 * @subresource status
 * @subresource scale specPath=.spec.replicas statusPath=.status.replicas
 * @printColumn name=Replicas type=integer jsonPath=.spec.replicas
 * @rbac groups="" resources=pods verbs=get;list
 */
export interface Policy {
  metadata?: object;
  spec: PolicySpec;
  status?: { /** @format int32 */ replicas?: number };
}
/** @exactlyOneOf a,b */
export interface PolicySpec {
  /** @format int32 */
  replicas: number;
  a?: string;
  b?: string;
  /** @immutable */
  id?: string;
}
/** @rbac groups=apps resources=deployments verbs=get */
export const controller = 1;
`),
      ],
      { baseDir: dir },
    );
    const r = model.resources[0]!;
    expect(r).toMatchObject({ kind: 'Policy', plural: 'policies', scope: 'Cluster', shortNames: ['pol'] });
    expect(r.versions[0]).toMatchObject({
      storage: true,
      statusSubresource: true,
      scale: { specReplicasPath: '.spec.replicas' },
    });
    const spec = r.versions[0]!.schema.properties!.spec!;
    expect(spec.validations![0]!.message).toBe('exactly one of the fields in [a b] must be set');
    expect(spec.properties!.id!.validations).toEqual([
      { rule: 'self == oldSelf', message: 'field is immutable' },
    ]);
    expect(model.permissions.map((p) => p.resources[0])).toEqual(['pods', 'deployments']);
  });
});

describe('readTypeScript: the rest of the vocabulary', () => {
  it('maps ReadonlyArray, extends, TS enums and the well-known types to their upstream schemas', () => {
    writeFileSync(
      path.join(dir, 'shared-types.ts'),
      'export type Time = string;\nexport type IntOrString = number | string;\nexport type Quantity = string;\n',
    );
    const s = spec(
      `
  names: ReadonlyArray<string>;
  at: Time;
  port: IntOrString;
  size: Quantity;
  when: Date;
  phase: Phase;
  ready: V1Condition[];
  selector: V1LabelSelector;
  base: Derived;`,
      `import type { Time, IntOrString, Quantity } from './shared-types.ts';
import type { V1Condition, V1LabelSelector } from '@kubernetes/client-node';
export enum Phase { Up = 'Up', Down = 'Down' }
export interface Base { a: string }
export interface Derived extends Base { b?: string }`,
    );
    const p = s.properties!;
    expect(p.names).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(p.at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.when).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.port).toMatchObject({ intOrString: true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(p.size).toMatchObject({ intOrString: true, pattern: expect.stringMatching(/^\^\(\\\+\|-\)\?/) });
    expect(p.phase).toMatchObject({ type: 'string', enum: ['Up', 'Down'] });
    expect(p.ready!.items).toMatchObject({
      required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
      properties: { status: { enum: ['True', 'False', 'Unknown'] } },
    });
    expect(p.selector).toMatchObject({
      mapType: 'atomic',
      properties: { matchLabels: {}, matchExpressions: {} },
    });
    expect(p.base).toMatchObject({ required: ['a'], properties: { a: {}, b: {} } });
  });

  it('reads the remaining resource markers (kind, plural, versions, deprecation, selectable fields, CRD metadata, conversion)', () => {
    const file = source(`/**
 * @group example.dev
 * @version v1
 * @kind Gizmo
 * @plural gizmoes
 * @storageVersion
 * @selectableField jsonPath=.spec.color
 * @crdAnnotation example.dev/owner=team-a
 * @crdLabel tier=core
 * @conversion {"strategy": "None"}
 */
export interface GizmoV1 {
  metadata?: object;
  spec: { color: string };
}
/**
 * @group example.dev
 * @version v1beta1
 * @kind Gizmo
 * @plural gizmoes
 * @served false
 * @deprecatedVersion warning="use v1"
 */
export interface GizmoV1beta1 {
  metadata?: object;
  spec: { color: string };
}
`);
    const r = readTypeScript([file], { baseDir: dir }).resources[0]!;
    expect(r).toMatchObject({
      kind: 'Gizmo',
      plural: 'gizmoes',
      annotations: { 'example.dev/owner': 'team-a' },
      labels: { tier: 'core' },
      conversion: { strategy: 'None' },
    });
    expect(r.versions.map((v) => [v.name, v.storage, v.served, v.deprecated ?? false])).toEqual([
      ['v1', true, true, false],
      ['v1beta1', false, false, true],
    ]);
    expect(r.versions[0]!.selectableFields).toEqual(['.spec.color']);
    expect(r.versions[1]!.deprecationWarning).toBe('use v1');
  });

  it('reads the remaining schema markers (exclusiveMinimum, mapType, embeddedResource, object, oneOf)', () => {
    const s = spec(`
  /**
   * @format int32
   * @exclusiveMinimum 0
   */
  positive: number;
  /** @mapType atomic */
  labels?: Record<string, string>;
  /** @embeddedResource @preserveUnknownFields */
  template?: Record<string, unknown>;
  /** @object */
  opaque?: Record<string, unknown>;
  /** @oneOf [{"required": ["a"]}, {"required": ["b"]}] */
  pick?: { a?: string; b?: string };`);
    const p = s.properties!;
    expect(p.positive).toMatchObject({ minimum: 0, exclusiveMinimum: true });
    expect(p.labels).toMatchObject({ mapType: 'atomic', additionalProperties: { type: 'string' } });
    expect(p.template).toMatchObject({ type: 'object', embeddedResource: true, preserveUnknownFields: true });
    expect(p.opaque).toEqual(expect.objectContaining({ type: 'object' }));
    expect(p.opaque!.additionalProperties).toBeUndefined();
    expect(p.pick!.oneOf).toMatchObject([{ required: ['a'] }, { required: ['b'] }]);
  });
});

describe('readTypeScript: errors name the file and line', () => {
  it('rejects an unknown marker with a suggestion', () => {
    const msg = errors(`  /** @maxLenght 3 */\n  name: string;`);
    expect(msg).toMatch(/case\d+\.ts:12:\d+: unknown marker @maxLenght; did you mean @maxLength\?/);
  });

  it('rejects a misspelled case and a misplaced marker', () => {
    expect(errors(`  /** @MinLength 3 */\n  name: string;`)).toMatch(
      /unknown marker @MinLength; did you mean @minLength\?/,
    );
    expect(
      errors(
        `  /** @maxLength 3 */\n  /** @format int32 */ n: number;`.replace(
          '/** @maxLength 3 */\n  /** @format int32 */',
          '/**\n   * @format int32\n   * @maxLength 3\n   */',
        ),
      ),
    ).toMatch(
      /case\d+\.ts:14:\d+: misplaced marker @maxLength: it applies to string values, but this is integer/,
    );
    expect(errors(`  /** @group x.dev */\n  name: string;`)).toMatch(
      /misplaced marker @group: it belongs on a resource's root interface/,
    );
  });

  it('requires an integer or float choice for number', () => {
    expect(errors('  count: number;')).toMatch(
      /case\d+\.ts:12:3: `number` needs an explicit integer or float choice/,
    );
  });

  it('rejects types a CRD cannot express', () => {
    expect(errors('  f: () => void;')).toMatch(/cannot be expressed in a CRD schema/);
    expect(errors('  t: [string, string];')).toMatch(/tuples cannot be expressed/);
    expect(errors('  u: string | boolean;')).toMatch(/can only combine object types/);
    expect(errors('  n: Node;', 'export interface Node { next?: Node }')).toMatch(/recursive type Node/);
    expect(errors('  x?: unknown;')).toMatch(/needs @preserveUnknownFields/);
    expect(errors('  /** @default Always */\n  p?: string;')).toMatch(/@default takes a JSON value/);
    expect(errors('  /** @validation rule="self.a >" */\n  p?: string;')).toMatch(/does not parse/);
    expect(errors("  /** @pattern '^a$' */\n  p?: string;")).toMatch(/single quotes would be kept literally/);
    expect(errors('  g: Box<string>;', 'export interface Box<T> { v: T }')).toMatch(
      /case\d+\.ts:12:\d+: generic type Box<string> is not supported/,
    );
  });

  it('reports what the apiserver would reject: scale paths, printer columns, names', () => {
    const resource = (markers: string) => {
      try {
        readTypeScript(
          [
            source(
              `/**\n * @group example.dev\n * @version v1\n${markers}\n */\nexport interface Thing {\n  spec: { a?: string };\n}\n`,
            ),
          ],
          { baseDir: dir },
        );
      } catch (e) {
        expect(e).toBeInstanceOf(CodegenError);
        return (e as Error).message;
      }
      throw new Error('expected a CodegenError');
    };
    expect(resource(' * @subresource scale specPath=.replicas statusPath=.status.replicas')).toMatch(
      /case\d+\.ts:\d+:\d+: .*scale specReplicasPath must be under \.spec/,
    );
    expect(resource(' * @printColumn name=A type=color jsonPath=.spec.a')).toMatch(
      /printer column A: type must be one of integer, number, string, boolean, date/,
    );
    expect(resource(' * @printColumn name=A type=string jsonPath=spec.a')).toMatch(
      /jsonPath must start with a dot/,
    );
    expect(resource(' * @plural Things')).toMatch(/plural "Things" must be a lower-case DNS label/);
    expect(resource(' * @shortName T_1')).toMatch(
      /short name or category "T_1" must be a lower-case DNS label/,
    );
  });

  it('reports what the apiserver would reject (list map keys must be required)', () => {
    expect(
      errors(
        '  /**\n   * @listType map\n   * @listMapKey name\n   */\n  items?: Item[];',
        'export interface Item { name?: string }',
      ),
    ).toMatch(/list map key name must be required or have a default/);
  });
});
