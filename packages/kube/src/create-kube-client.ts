import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { InformerTuning, KubeClient } from './client.ts';
import { HttpApiClient, type HttpApiClientOptions } from './http-api-client.ts';
import { newKubeClient } from './kube-client.ts';
import type { Logger } from './logger.ts';
import type { ObjectFilter } from './object-filter.ts';

/** Where the cluster credentials come from, and how the client behaves. */
export interface KubeClientOptions {
  /**
   * A ready kubeconfig, e.g. a `@kubeloom/testing` control plane's `kubeConfig`. Otherwise the
   * default loading rules apply: `kubeconfigPath`, then `$KUBECONFIG`, then `~/.kube/config`,
   * then the in-cluster service account.
   */
  readonly kubeConfig?: KubeConfig | undefined;
  /** A kubeconfig file to load. */
  readonly kubeconfigPath?: string | undefined;
  /** The context to use instead of `current-context`. */
  readonly context?: string | undefined;
  /** Use the in-cluster service account (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inCluster?: boolean | undefined;
  /** Where every component logs. */
  readonly logger?: Logger | undefined;
  /** A client-wide object filter consulted by every informer. */
  readonly objectFilter?: ObjectFilter | undefined;
  /** Informer engine tuning. */
  readonly tuning?: InformerTuning | undefined;
  /** HTTP transport options. */
  readonly http?: HttpApiClientOptions | undefined;
}

/** Thrown when no usable kubeconfig can be loaded; the message says what to fix. */
export class KubeConfigError extends Error {
  /** Creates the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeConfigError';
  }
}

/**
 * Loads a kubeconfig following the options (see {@link KubeClientOptions}) and checks that it
 * names a cluster with a valid server URL.
 *
 * @throws {@link KubeConfigError} for a missing or unparsable file, an unknown context, a
 *   context without a cluster, or in-cluster loading outside a pod.
 */
export function loadKubeConfig(
  options: Omit<KubeClientOptions, 'logger' | 'objectFilter' | 'tuning' | 'http'> = {},
): KubeConfig {
  let kc: KubeConfig;
  let origin: string;
  if (options.kubeConfig) {
    kc = options.kubeConfig;
    origin = 'the given KubeConfig';
  } else if (options.inCluster) {
    if (!process.env.KUBERNETES_SERVICE_HOST) {
      throw new KubeConfigError(
        'inCluster was requested but KUBERNETES_SERVICE_HOST is not set: this process is not running in a pod. Use a kubeconfig file instead.',
      );
    }
    kc = new KubeConfig();
    kc.loadFromCluster();
    origin = 'the in-cluster service account';
  } else {
    const file = options.kubeconfigPath;
    const fromEnv = process.env.KUBECONFIG?.split(':').filter(Boolean) ?? [];
    kc = new KubeConfig();
    if (!file && fromEnv.length > 0) {
      // $KUBECONFIG may list several files, merged in order (kubectl's rules); missing ones are skipped.
      const present = fromEnv.filter((f) => existsSync(f));
      if (present.length === 0) {
        throw new KubeConfigError(
          `none of the files in $KUBECONFIG exists (${fromEnv.join(', ')}): check the paths`,
        );
      }
      try {
        kc.loadFromDefault();
      } catch (err) {
        throw new KubeConfigError(
          `a kubeconfig file in $KUBECONFIG (${present.join(', ')}) is invalid: ${(err as Error).message}`,
          { cause: err },
        );
      }
      origin = `$KUBECONFIG (${present.join(', ')})`;
    } else if (file) {
      if (!existsSync(file)) {
        throw new KubeConfigError(`kubeconfig file ${file} does not exist: check the path`);
      }
      try {
        kc.loadFromString(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new KubeConfigError(`kubeconfig file ${file} is invalid: ${(err as Error).message}`, {
          cause: err,
        });
      }
      origin = file;
    } else {
      try {
        kc.loadFromDefault();
      } catch (err) {
        throw new KubeConfigError(`cannot load the default kubeconfig: ${(err as Error).message}`, {
          cause: err,
        });
      }
      origin = 'the default kubeconfig (~/.kube/config or in-cluster)';
    }
  }
  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `context "${options.context}" is not in ${origin} (available: ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    throw new KubeConfigError(
      `no cluster found in ${origin}: set KUBECONFIG, create ~/.kube/config, pass kubeconfigPath, or run in a pod` +
        (kc.getCurrentContext() ? ` (current context: "${kc.getCurrentContext()}")` : ''),
    );
  }
  try {
    new URL(cluster.server);
  } catch {
    throw new KubeConfigError(
      `cluster "${cluster.name}" in ${origin} has an invalid server URL "${cluster.server}"`,
    );
  }
  return kc;
}

/**
 * Creates the {@link KubeClient} for a real cluster (HTTPS transport, discovery, informers).
 *
 * @example
 * ```ts
 * const kube = createKubeClient(); // $KUBECONFIG, ~/.kube/config or in-cluster
 * const cms = kube.informer(builtins.ConfigMap, { namespace: 'default' });
 * await kube.runAndWait(signal);
 * ```
 */
export function createKubeClient(options: KubeClientOptions = {}): KubeClient {
  const kubeConfig = loadKubeConfig(options);
  const api = new HttpApiClient(kubeConfig, options.http);
  return newKubeClient({
    api,
    kubeConfig,
    logger: options.logger,
    objectFilter: options.objectFilter,
    tuning: options.tuning,
  });
}
