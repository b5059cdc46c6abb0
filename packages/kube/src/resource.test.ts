import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import {
  apiVersionOf,
  defineResource,
  gvkOf,
  gvrOf,
  gvrString,
  parseApiVersion,
  resourcePath,
} from './resource.ts';

const widgets = defineResource<{ spec?: { size: number } }>({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

describe('resource descriptors', () => {
  it('name their group/version/kind and group/version/resource', () => {
    expect(gvkOf(builtins.Deployment)).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(gvrOf(builtins.Deployment)).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
    expect(gvkOf(builtins.ConfigMap)).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(gvrString(gvrOf(builtins.Deployment))).toBe('deployments.v1.apps');
    expect(gvrString(gvrOf(builtins.ConfigMap))).toBe('configmaps.v1');
  });

  it('write and parse apiVersion, the core group without a slash', () => {
    expect(apiVersionOf(builtins.Deployment)).toBe('apps/v1');
    expect(apiVersionOf(builtins.ConfigMap)).toBe('v1');
    expect(parseApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
  });

  it('build URL paths: group prefix, namespace only for namespaced kinds, subresource only with a name', () => {
    expect(resourcePath(widgets, { namespace: 'a b', name: 'w/1', subresource: 'status' })).toBe(
      '/apis/example.com/v1/namespaces/a%20b/widgets/w%2F1/status',
    );
    expect(resourcePath(builtins.ConfigMap, { namespace: 'ns' })).toBe('/api/v1/namespaces/ns/configmaps');
    expect(resourcePath(builtins.Namespace, { namespace: 'ignored', name: 'ns' })).toBe(
      '/api/v1/namespaces/ns',
    );
    expect(resourcePath(widgets, { subresource: 'status' })).toBe('/apis/example.com/v1/widgets');
  });

  it('defineResource freezes a copy', () => {
    expect(Object.isFrozen(widgets)).toBe(true);
    expect(gvkOf(widgets).kind).toBe('Widget');
  });
});
