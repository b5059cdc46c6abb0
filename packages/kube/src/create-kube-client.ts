import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiClient } from './api.ts';
import type { InformerTuning, KubeClient } from './client.ts';
import { HttpApiClient, type HttpOptions } from './http-api-client.ts';
import { selectContext } from './internal/kubeconfig-context.ts';
import { findKubeConfig, SERVICE_ACCOUNT_DIR } from './internal/kubeconfig-sources.ts';
import { checkTlsMaterial } from './internal/kubeconfig-tls.ts';
import { kubeClientOver } from './kube-client.ts';
import type { Logger } from './logger.ts';
import type { ObjectFilter } from './object-filter.ts';
import type { ResourceRegistry } from './registry.ts';
import { observedApiClient, type RequestObserver } from './request-observer.ts';

/** Where the cluster credentials come from (or which transport to use), and how the client behaves. */
export interface KubeClientOptions {
  /**
   * A ready transport (any {@link ApiClient}: a wrapped or instrumented HTTPS client, the fake
   * cluster's). When set, no kubeconfig is loaded: `kubeConfig`, if also given, only backs
   * `makeApiClient` and `objectApi`, and `kubeconfigPath`, `context`, `inCluster`, `env` and
   * `http` are ignored. The client owns it: `shutdown` closes it and disposal disposes it.
   */
  readonly api?: ApiClient | undefined;
  /** A registry to use instead of discovery over the transport. */
  readonly registry?: ResourceRegistry | undefined;
  /**
   * A ready kubeconfig, e.g. a `@kubeloom/testing` control plane's `kubeConfig`. Otherwise the
   * default loading rules apply: `kubeconfigPath`, then `$KUBECONFIG` (files merged, the first to
   * define a name wins, as kubectl), then `~/.kube/config`, then the in-cluster service account.
   * When none exists, {@link KubeConfigError} lists every place searched.
   */
  readonly kubeConfig?: KubeConfig | undefined;
  /** A kubeconfig file to load. */
  readonly kubeconfigPath?: string | undefined;
  /** The context to use instead of `current-context`. */
  readonly context?: string | undefined;
  /** Use the in-cluster service account (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inCluster?: boolean | undefined;
  /**
   * Where the in-cluster service-account files (`token`, `ca.crt`, `namespace`) are. Default
   * `/var/run/secrets/kubernetes.io/serviceaccount`, where the kubelet mounts them; another
   * directory runs a process as it would run in a Pod, outside one (what `@kubeloom/testing`'s
   * `inClusterEnv` lays out). The token is re-read as the kubelet rotates it.
   */
  readonly serviceAccountDir?: string | undefined;
  /**
   * The environment to read `KUBECONFIG`, `HOME` and `KUBERNETES_SERVICE_HOST`/`_PORT` from;
   * `process.env` by default. Lets a caller (or a test) resolve a configuration without touching
   * the process-wide environment.
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Where every component logs. */
  readonly logger?: Logger | undefined;
  /** A client-wide object filter consulted by every informer. */
  readonly objectFilter?: ObjectFilter | undefined;
  /** Informer engine tuning. */
  readonly tuning?: InformerTuning | undefined;
  /** HTTP transport options. */
  readonly http?: HttpOptions | undefined;
  /**
   * Called after every request with its verb, resource, status code and duration (for a watch,
   * once established): what `rest_client_requests_total` and `rest_client_request_duration_seconds`
   * are made of (`@kubeloom/controllers`' `prometheusRequestMetrics`). Applies to `api` too.
   */
  readonly requestObserver?: RequestObserver | undefined;
}

/** Where the cluster credentials come from, and how the HTTPS transport behaves ({@link createApiClient}). */
export type ApiClientOptions = Pick<
  KubeClientOptions,
  'kubeConfig' | 'kubeconfigPath' | 'context' | 'inCluster' | 'env' | 'http'
>;

/**
 * Loads a kubeconfig following the options (see {@link KubeClientOptions}), selects the context
 * and checks it: its cluster and user exist, the server URL parses, and the certificate data
 * (`certificate-authority[-data]`, `client-certificate[-data]`, `client-key[-data]`) is readable
 * PEM that OpenSSL accepts, with a key matching its certificate.
 *
 * @throws {@link KubeConfigError} naming the file, context, cluster or user and field at fault,
 *   or listing every place searched when no configuration exists at all.
 */
export function loadKubeConfig(
  options: Pick<
    KubeClientOptions,
    'kubeConfig' | 'kubeconfigPath' | 'context' | 'inCluster' | 'env' | 'serviceAccountDir'
  > = {},
): KubeConfig {
  const found = findKubeConfig({
    kubeConfig: options.kubeConfig,
    kubeconfigPath: options.kubeconfigPath,
    inCluster: options.inCluster,
    env: options.env ?? process.env,
    serviceAccountDir: options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR,
  });
  const selected = selectContext(found, options.context);
  checkTlsMaterial(selected);
  return found.kubeConfig;
}

/**
 * Creates the HTTPS {@link ApiClient} for a cluster: the kubeconfig is loaded and checked as by
 * {@link loadKubeConfig}, requests go over `node:https` with a keep-alive agent (client
 * certificates, tokens, exec and auth-provider plugins), Status bodies become typed
 * {@link ApiError}s and watches are decoded line by line with an idle timeout. Use it to wrap or
 * instrument the transport before handing it to `createKubeClient({ api })`; `createKubeClient()`
 * alone creates one itself.
 *
 * @example On the real control plane, from src/create-api-client.integration.test.ts
 * {@includeCode ./create-api-client.integration.test.ts#createApiClient}
 *
 * @throws {@link KubeConfigError} when the kubeconfig is missing or broken.
 */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  return new HttpApiClient(loadKubeConfig(options), options.http);
}

/**
 * Creates a {@link KubeClient}: for a real cluster (kubeconfig loading, HTTPS transport,
 * discovery, informers) or, with `{ api }`, over any {@link ApiClient}.
 * `await using kube = createKubeClient()` loads `$KUBECONFIG`, `~/.kube/config` or the in-cluster
 * service account, and disposes the client when the scope ends.
 *
 * @example Informers on it, run against the fake cluster
 * {@includeCode ./example.test.ts#informer}
 *
 * @example Over any ApiClient
 * {@includeCode ./example.test.ts#over-api}
 *
 * @throws {@link KubeConfigError} when no `api` is given and the kubeconfig is missing or broken.
 */
export function createKubeClient(options: KubeClientOptions = {}): KubeClient {
  const { logger, objectFilter, tuning, registry } = options;
  const observe = (api: ApiClient): ApiClient =>
    options.requestObserver ? observedApiClient(api, options.requestObserver) : api;
  if (options.api) {
    return kubeClientOver({
      api: observe(options.api),
      kubeConfig: options.kubeConfig,
      logger,
      objectFilter,
      tuning,
      registry,
    });
  }
  const kubeConfig = loadKubeConfig(options);
  const api = observe(new HttpApiClient(kubeConfig, options.http));
  return kubeClientOver({ api, kubeConfig, logger, objectFilter, tuning, registry });
}
