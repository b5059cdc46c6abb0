import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { b64 } from './internal/launch.ts';

/** Options for a ServiceAccount's bound token (TokenRequest API). */
export interface ServiceAccountTokenOptions {
  /** Lifetime the token asks for; the apiserver allows 600 s at least. Default 3600. */
  readonly expirationSeconds?: number;
  /** Audiences; default: the apiserver's own (the token then authenticates to it). */
  readonly audiences?: readonly string[];
}

/** What a process needs to start with in-cluster configuration, as it would in a Pod. */
export interface InClusterEnv {
  /**
   * The directory standing for `/`: the service-account files are below it at
   * `var/run/secrets/kubernetes.io/serviceaccount/`. Pass it to client-node's
   * `KubeConfig.loadFromCluster(pathPrefix)`.
   */
  readonly pathPrefix: string;
  /** `<pathPrefix>/var/run/secrets/kubernetes.io/serviceaccount`, holding `token`, `ca.crt` and `namespace`. */
  readonly serviceAccountDir: string;
  /** `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`, pointing at the apiserver. */
  readonly env: Readonly<{ KUBERNETES_SERVICE_HOST: string; KUBERNETES_SERVICE_PORT: string }>;
  /** The bound token first written to `token`. */
  readonly token: string;
  /**
   * Requests a new bound token and replaces the `token` file atomically (write, then rename), as
   * the kubelet rotates a projected token; resolves with the new token. For tests of token reloading.
   */
  rotateToken(): Promise<string>;
}

/** Where a Pod's service-account volume is mounted. */
const SERVICE_ACCOUNT_MOUNT = path.join('var', 'run', 'secrets', 'kubernetes.io', 'serviceaccount');

/**
 * Requests a bound token for `namespace/name` through the TokenRequest API with `admin`.
 *
 * @throws when the ServiceAccount does not exist, saying to create it first.
 */
export async function requestServiceAccountToken(
  admin: KubeConfig,
  serviceAccount: { readonly namespace: string; readonly name: string },
  options: ServiceAccountTokenOptions = {},
): Promise<string> {
  const { namespace, name } = serviceAccount;
  const core = admin.makeApiClient(CoreV1Api);
  try {
    const res = await core.createNamespacedServiceAccountToken({
      namespace,
      name,
      body: {
        spec: {
          audiences: [...(options.audiences ?? [])],
          expirationSeconds: options.expirationSeconds ?? 3600,
        },
      },
    });
    const token = res.status?.token;
    if (!token) throw new Error(`the TokenRequest for ServiceAccount ${namespace}/${name} returned no token`);
    return token;
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) {
      throw new Error(
        `ServiceAccount ${namespace}/${name} does not exist: create it (and the namespace) before ` +
          'asking for its token.',
        { cause: err },
      );
    }
    throw err;
  }
}

/** A client configuration that authenticates with a bearer token. */
export function tokenKubeConfig(
  cluster: { readonly server: string; readonly caPem: string },
  user: string,
  token: string,
): KubeConfig {
  const { server, caPem } = cluster;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kubeloom-test', server, caData: b64(caPem), skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: 'kubeloom-test', cluster: 'kubeloom-test', user }],
    currentContext: 'kubeloom-test',
  });
  return kc;
}

/**
 * Lays out a Pod's service-account files (`token`, `ca.crt`, `namespace`) in a new directory
 * below `parent` and returns them with the environment that points at the apiserver.
 */
export function writeInClusterFiles(
  parent: string,
  target: {
    readonly server: string;
    readonly caPem: string;
    readonly namespace: string;
    readonly token: string;
  },
  requestToken: () => Promise<string>,
): InClusterEnv {
  const pathPrefix = mkdtempSync(path.join(parent, 'in-cluster-'));
  const serviceAccountDir = path.join(pathPrefix, SERVICE_ACCOUNT_MOUNT);
  mkdirSync(serviceAccountDir, { recursive: true });
  const tokenFile = path.join(serviceAccountDir, 'token');
  writeFileSync(tokenFile, target.token, { mode: 0o600 });
  writeFileSync(path.join(serviceAccountDir, 'ca.crt'), target.caPem);
  writeFileSync(path.join(serviceAccountDir, 'namespace'), target.namespace);
  const url = new URL(target.server);
  return {
    pathPrefix,
    serviceAccountDir,
    env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port || '443' },
    token: target.token,
    async rotateToken() {
      const token = await requestToken();
      const next = `${tokenFile}.next`;
      writeFileSync(next, token, { mode: 0o600 });
      renameSync(next, tokenFile);
      return token;
    },
  };
}
