import { describe, expect, it } from 'vitest';
import { requestInfo } from './request-info.ts';

describe('requestInfo', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/configmaps', { verb: 'list', resource: 'configmaps', namespace: 'ns' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5', { verb: 'watch', watch: true }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=1', { verb: 'watch', watch: true }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=false', { verb: 'list', watch: false }],
    [
      'GET',
      '/api/v1/watch/namespaces/ns/pods',
      { verb: 'watch', watch: true, resource: 'pods', namespace: 'ns' },
    ],
    ['GET', '/api/v1/namespaces/ns/configmaps/one', { verb: 'get', name: 'one', apiGroup: '' }],
    [
      'GET',
      '/apis/apps/v1/deployments',
      { verb: 'list', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' },
    ],
    [
      'PUT',
      '/apis/apps/v1/namespaces/ns/deployments/web/status',
      { verb: 'update', resource: 'deployments', name: 'web', subresource: 'status' },
    ],
    ['POST', '/api/v1/namespaces/ns/configmaps', { verb: 'create' }],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/one', { verb: 'patch' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/one', { verb: 'delete' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', { verb: 'deletecollection' }],
    ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces' }],
    ['GET', '/api/v1/namespaces/kube-system', { verb: 'get', resource: 'namespaces', name: 'kube-system' }],
    [
      'PUT',
      '/api/v1/namespaces/ns/finalize',
      { verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'finalize' },
    ],
    ['GET', '/api', { verb: 'discovery' }],
    ['GET', '/apis', { verb: 'discovery' }],
    ['GET', '/apis/apps/v1', { verb: 'discovery', apiGroup: 'apps' }],
    ['GET', '/api/v1', { verb: 'discovery', apiGroup: '' }],
    ['GET', '/version', { verb: 'nonresource' }],
    ['GET', '/openapi/v3', { verb: 'nonresource' }],
    ['OPTIONS', '/api/v1/namespaces/ns/configmaps', { verb: 'other' }],
    ['POST', '/api/v1/namespaces/ns/configmaps?watch=true', { verb: 'create', watch: false }],
  ] as const)('%s %s', (method, url, expected) => {
    expect(requestInfo(method, url)).toMatchObject(expected);
  });

  it('keeps the path and the query', () => {
    const info = requestInfo('GET', '/api/v1/pods?limit=500&continue=abc');
    expect(info.path).toBe('/api/v1/pods');
    expect(info.query).toEqual({ limit: '500', continue: 'abc' });
  });
});
