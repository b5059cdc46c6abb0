import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { WatchEvent } from '../../src/api.ts';
import type { Status } from '../../src/errors.ts';
import { ApiError } from '../../src/errors.ts';
import type { KubeObject } from '../../src/object.ts';
import { defineResource, type TypedResourceDescriptor } from '../../src/resource.ts';

/** The suffix of every conformance CRD group; each suite prefixes a unique label. */
const GROUP_SUFFIX = 'conformance.kubeloom.dev';

/** A unique API group for one suite, so suites on a shared control plane never collide. */
export function uniqueGroup(): string {
  return `r${randomBytes(5).toString('hex')}.${GROUP_SUFFIX}`;
}

/** A custom object as plain JSON: any `spec` and `status`. */
type CustomObject = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

/** The custom resources of one suite, in its own API group. */
export interface Fixtures {
  /** The suite's API group, e.g. `r0a1b2c3d4.conformance.kubeloom.dev`. */
  readonly group: string;
  /** A namespaced custom resource with a status subresource and a schema that preserves unknown fields. */
  readonly Widget: TypedResourceDescriptor<CustomObject>;
  /** A cluster-scoped custom resource without subresources. */
  readonly Gadget: TypedResourceDescriptor<CustomObject>;
  /** A namespaced custom resource the tests install and delete. */
  readonly Ephemeral: TypedResourceDescriptor<CustomObject>;
  /** A namespaced custom resource whose schema declares list and map types (see {@link Fixtures.listerCrd}). */
  readonly Lister: TypedResourceDescriptor<CustomObject>;
  /** The CRD of {@link Fixtures.Widget}, installed by the suite. */
  readonly widgetCrd: KubeObject;
  /** The CRD of {@link Fixtures.Gadget}, installed by the suite. */
  readonly gadgetCrd: KubeObject;
  /** The CRD of {@link Fixtures.Ephemeral}. */
  readonly ephemeralCrd: KubeObject;
  /**
   * The CRD of {@link Fixtures.Lister}: `spec.ports` is a list-map keyed by `name`, `spec.tags` a
   * set, `spec.args` an atomic list, `spec.selector` an atomic map.
   */
  readonly listerCrd: KubeObject;
  /**
   * A Widget object `namespace/name`; `fields` (`spec`, `status`, or a whole `metadata`) replace
   * the defaults (an empty spec).
   */
  widget(namespace: string, name: string, fields?: Omit<CustomObject, 'apiVersion' | 'kind'>): CustomObject;
}

const PRESERVE = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const LISTER_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: { type: 'string' },
        },
      },
    },
  },
};

/** A conformance CRD (see {@link crd}); `plural.group` is its name. */
interface CrdOptions {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** With the status subresource. */
  readonly status: boolean;
  readonly shortNames?: string[];
  /** The `openAPIV3Schema` of its one version, v1 (default: preserve unknown fields). */
  readonly schema?: Record<string, unknown>;
}

/** The CRD of a conformance resource. */
function crd({
  group,
  plural,
  kind,
  scope,
  status,
  shortNames = [],
  schema = PRESERVE,
}: CrdOptions): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        listKind: `${kind}List`,
        ...(shortNames.length ? { shortNames } : {}),
      },
      scope,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(status ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  } as KubeObject;
}

/** The custom resources of a suite whose CRDs live in `group`. */
export function createFixtures(group: string): Fixtures {
  const resource = ({
    kind,
    plural,
    namespaced,
    status,
    shortNames,
  }: {
    kind: string;
    plural: string;
    namespaced: boolean;
    status: boolean;
    shortNames?: string[];
  }) =>
    defineResource<CustomObject>({
      group,
      version: 'v1',
      kind,
      plural,
      singular: kind.toLowerCase(),
      namespaced,
      listKind: `${kind}List`,
      ...(status ? { subresources: { status: true } } : {}),
      ...(shortNames ? { shortNames } : {}),
    });
  return {
    group,
    Widget: resource({
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
      status: true,
      shortNames: ['wdg'],
    }),
    Gadget: resource({ kind: 'Gadget', plural: 'gadgets', namespaced: false, status: false }),
    Ephemeral: resource({ kind: 'Ephemeral', plural: 'ephemerals', namespaced: true, status: true }),
    Lister: resource({ kind: 'Lister', plural: 'listers', namespaced: true, status: false }),
    widgetCrd: crd({
      group,
      plural: 'widgets',
      kind: 'Widget',
      scope: 'Namespaced',
      status: true,
      shortNames: ['wdg'],
    }),
    gadgetCrd: crd({ group, plural: 'gadgets', kind: 'Gadget', scope: 'Cluster', status: false }),
    ephemeralCrd: crd({ group, plural: 'ephemerals', kind: 'Ephemeral', scope: 'Namespaced', status: true }),
    listerCrd: crd({
      group,
      plural: 'listers',
      kind: 'Lister',
      scope: 'Namespaced',
      status: false,
      schema: LISTER_SCHEMA,
    }),
    widget: (namespace, name, fields = {}) =>
      ({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name, namespace },
        spec: {},
        ...fields,
      }) as CustomObject,
  };
}

/** Awaits a rejection and returns it as an {@link ApiError} (fails the test otherwise). */
export async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the request to fail with an ApiError, but it succeeded');
}

/** Checks the Status of an error: `kind: Status`, `status: Failure`, and the given fields. */
export function expectStatus(
  err: ApiError,
  expected: Partial<Status> & { code: number; reason: string },
): void {
  expect(err.code).toBe(expected.code);
  expect(err.status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', ...expected });
}

/** The resourceVersion of an object as a bigint. */
export function rv(obj: KubeObject | { metadata?: { resourceVersion?: string } }): bigint {
  const v = obj.metadata?.resourceVersion;
  expect(v).toMatch(/^\d+$/);
  return BigInt(v!);
}

/** A ConfigMap as plain JSON. */
export type ConfigMapObject = KubeObject & { data?: Record<string, string> };

/** What a test ConfigMap holds beyond its name (default: no data, no labels). */
export interface ConfigMapContent {
  readonly data?: Record<string, string>;
  readonly labels?: Record<string, string>;
}

/** A ConfigMap `namespace/name`. */
export function configMap(
  namespace: string,
  name: string,
  { data = {}, labels }: ConfigMapContent = {},
): ConfigMapObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  } as ConfigMapObject;
}

/** A one-container Deployment. */
export function deployment(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'example/main:1',
              env: [{ name: 'A', value: '1' }],
              ports: [{ containerPort: 80 }],
            },
            { name: 'side', image: 'example/side:1' },
          ],
        },
      },
    },
  } as KubeObject;
}

/** Narrows a watch read to an event of `type`, throwing (and so failing the test) otherwise. */
export function expectEvent<K extends WatchEvent['type']>(
  e: WatchEvent | 'end',
  type: K,
): WatchEvent & { readonly type: K } {
  if (e === 'end' || e.type !== type)
    throw new Error(
      `expected a ${type} event, got ${e === 'end' ? 'the end of the stream' : JSON.stringify(e)}`,
    );
  return e as WatchEvent & { readonly type: K };
}
