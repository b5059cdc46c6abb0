/**
 * client-go's REST client metrics for a kubeloom `KubeClient`: pass the observer this returns as
 * `createKubeClient({ requestObserver })`.
 *
 * @module
 */

import type { ObservedRequest, RequestObserver } from '@kubeloom/kube';
import type { PrometheusMetricsOptions, PromMetricConfig } from './prometheus-metrics.ts';

/** client-go's `rest_client_request_duration_seconds` buckets. */
const BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** Options of {@link prometheusRequestMetrics}. */
export interface PrometheusRequestMetricsOptions extends PrometheusMetricsOptions {
  /** The `host` label: the apiserver's `host:port`. Default `''`. */
  readonly host?: string | undefined;
}

/**
 * Registers `rest_client_requests_total{code, method, host}` and
 * `rest_client_request_duration_seconds{verb, host}` (`verb` is the HTTP method, as in client-go)
 * and returns the observer that feeds them. A connection that got no response counts with code
 * `<error>`, as client-go's.
 *
 * @throws Error when the registry already holds one of these names.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#prometheusRequestMetrics}
 */
export function prometheusRequestMetrics(opts: PrometheusRequestMetricsOptions): RequestObserver {
  const { registry, promClient } = opts;
  const host = opts.host ?? '';
  const make = <M>(ctor: new (c: PromMetricConfig) => M, config: Omit<PromMetricConfig, 'registers'>): M => {
    if (registry.getSingleMetric(config.name) !== undefined)
      throw new Error(`prometheusRequestMetrics: the registry already has a metric named ${config.name}`);
    const metric = new ctor({ ...config, registers: [] });
    registry.registerMetric(metric as never);
    return metric;
  };
  const requests = make(promClient.Counter, {
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'],
  });
  const latency = make(promClient.Histogram, {
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: BUCKETS,
  });
  return (r: ObservedRequest) => {
    requests.inc({ code: r.code === 0 ? '<error>' : String(r.code), method: r.method, host });
    latency.observe({ verb: r.method, host }, r.durationSeconds);
  };
}
