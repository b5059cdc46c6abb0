import { expect } from 'vitest';
import type { Status } from '../errors.ts';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { defineResource, type ResourceDescriptor } from '../resource.ts';

/** The API group of the suite's CRDs (unique, so the suite can share a control plane). */
export const GROUP = 'conformance.kubeloom.dev';

/** A namespaced custom resource with a status subresource. */
export const Widget: ResourceDescriptor = defineResource({
  group: GROUP,
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  listKind: 'WidgetList',
  subresources: { status: true },
  shortNames: ['wdg'],
});

/** A cluster-scoped custom resource without subresources. */
export const Gadget: ResourceDescriptor = defineResource({
  group: GROUP,
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  singular: 'gadget',
  namespaced: false,
  listKind: 'GadgetList',
});

function crd(
  plural: string,
  kind: string,
  scope: 'Namespaced' | 'Cluster',
  status: boolean,
  shortNames: string[] = [],
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
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
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  } as KubeObject;
}

/** The CRD of {@link Widget}. */
export const widgetCrd: KubeObject = crd('widgets', 'Widget', 'Namespaced', true, ['wdg']);
/** The CRD of {@link Gadget}. */
export const gadgetCrd: KubeObject = crd('gadgets', 'Gadget', 'Cluster', false);
/** A CRD the discovery tests install and delete. */
export const ephemeralCrd: KubeObject = crd('ephemerals', 'Ephemeral', 'Namespaced', true);
/** The resource of {@link ephemeralCrd}. */
export const Ephemeral: ResourceDescriptor = defineResource({
  group: GROUP,
  version: 'v1',
  kind: 'Ephemeral',
  plural: 'ephemerals',
  namespaced: true,
  subresources: { status: true },
});

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

/** A ConfigMap. */
export function configMap(
  namespace: string,
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): ConfigMapObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  } as ConfigMapObject;
}

/** A Widget. */
export function widget(
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Widget',
    metadata: { name, namespace },
    spec,
    ...extra,
  } as KubeObject;
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

/** Retries `check` until it stops throwing, for at most `timeoutMs` (the real apiserver updates discovery asynchronously). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
