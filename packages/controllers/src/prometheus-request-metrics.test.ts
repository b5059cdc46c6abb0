import { builtins, createKubeClient, isNotFound } from '@kubeloom/kube';
import { createFakeApiClient } from '@kubeloom/kube/fake';
import * as prom from 'prom-client';
import { expect, it } from 'vitest';
import { prometheusRequestMetrics } from './prometheus-request-metrics.ts';

it('counts requests by code and method and times them by verb, as client-go does', async () => {
  const registry = new prom.Registry();
  const requestObserver = prometheusRequestMetrics({ registry, promClient: prom, host: '127.0.0.1:6443' });
  await using kube = createKubeClient({ api: createFakeApiClient(), requestObserver });
  await kube.api.create(builtins.ConfigMap, { metadata: { name: 'a', namespace: 'default' } });
  await kube.api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'default' });
  await expect(
    kube.api.get({ resource: builtins.ConfigMap, name: 'b', namespace: 'default' }),
  ).rejects.toSatisfy(isNotFound);
  const text = await registry.metrics();
  expect(text).toContain('rest_client_requests_total{code="201",method="POST",host="127.0.0.1:6443"} 1');
  expect(text).toContain('rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"} 1');
  expect(text).toContain('rest_client_requests_total{code="404",method="GET",host="127.0.0.1:6443"} 1');
  expect(text).toContain('rest_client_request_duration_seconds_count{verb="GET",host="127.0.0.1:6443"} 2');
  expect(() => prometheusRequestMetrics({ registry, promClient: prom })).toThrow(
    /already has a metric named rest_client_requests_total/,
  );
});
