import { accessSync, existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type Cluster, type Context, KubeConfig, type User } from '@kubernetes/client-node';
import { KubeConfigError } from '../errors.ts';

/** Where a pod's service account is mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The environment variables read while looking for a configuration. */
type KubeConfigEnv = Readonly<Record<string, string | undefined>>;

/** What {@link findKubeConfig} looks at, in order of precedence. */
export interface KubeConfigSourceOptions {
  readonly kubeConfig?: KubeConfig | undefined;
  readonly kubeconfigPath?: string | undefined;
  readonly inCluster?: boolean | undefined;
  readonly env: KubeConfigEnv;
  readonly serviceAccountDir: string;
}

/** A loaded configuration and where each of its entries came from, for error messages. */
export interface FoundKubeConfig {
  readonly kubeConfig: KubeConfig;
  /** How the configuration was found, e.g. `kubeconfig file /x` or `the in-cluster service account`. */
  readonly origin: string;
  /** The kubeconfig files loaded, in order (empty for a given KubeConfig or in-cluster). */
  readonly files: readonly string[];
  /** The file that defined a context, cluster or user (the first one wins when files are merged). */
  fileOf(kind: 'context' | 'cluster' | 'user', name: string): string | undefined;
}

const describeFile = (file: string) => `kubeconfig file ${file}`;

/**
 * Finds and loads the configuration the way client-node's `KubeConfig.loadFromDefault` does
 * (`$KUBECONFIG`, else `~/.kube/config`, else the in-cluster service account) but without its
 * silent fallback to `http://localhost:8080`: when nothing is found, the error lists every place
 * searched. An explicit `kubeConfig`, `inCluster` or `kubeconfigPath` comes first.
 */
export function findKubeConfig(options: KubeConfigSourceOptions): FoundKubeConfig {
  const { env } = options;
  if (options.kubeConfig) {
    return {
      kubeConfig: options.kubeConfig,
      origin: 'the given KubeConfig',
      files: [],
      fileOf: () => undefined,
    };
  }
  if (options.inCluster) {
    const problems = inClusterProblems(env, options.serviceAccountDir);
    if (problems.length > 0) {
      throw new KubeConfigError(
        `inCluster was requested but ${problems.join('; ')}: this process is not running in a pod with a service account. Use a kubeconfig file instead.`,
      );
    }
    return loadInCluster(env, options.serviceAccountDir);
  }
  if (options.kubeconfigPath) {
    const file = options.kubeconfigPath;
    if (!existsSync(file)) {
      throw new KubeConfigError(`${describeFile(file)} does not exist: check the kubeconfigPath option`, {
        file,
      });
    }
    return loadFiles([file]);
  }
  const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (fromEnv.length > 0) {
    for (const file of fromEnv) {
      if (!existsSync(file)) {
        throw new KubeConfigError(
          `KUBECONFIG names ${file}, which does not exist: fix the path or remove it from KUBECONFIG (KUBECONFIG=${env.KUBECONFIG})`,
          { file },
        );
      }
    }
    return loadFiles(fromEnv);
  }
  const searched = ['$KUBECONFIG: not set'];
  const home = homeDir(env);
  const defaultFile = home ? path.join(home, '.kube', 'config') : undefined;
  if (defaultFile && existsSync(defaultFile)) return loadFiles([defaultFile]);
  searched.push(defaultFile ? `${defaultFile}: does not exist` : '~/.kube/config: HOME is not set');
  const problems = inClusterProblems(env, options.serviceAccountDir);
  if (problems.length === 0) return loadInCluster(env, options.serviceAccountDir);
  const sa = options.serviceAccountDir;
  searched.push(
    `in-cluster service account: ${saFile(sa, 'token')} ${existsSync(saFile(sa, 'token')) ? 'exists' : 'does not exist'}, ` +
      `${saFile(sa, 'ca.crt')} ${existsSync(saFile(sa, 'ca.crt')) ? 'exists' : 'does not exist'}, ` +
      `$KUBERNETES_SERVICE_HOST ${env.KUBERNETES_SERVICE_HOST ? 'is set' : 'is not set'}, ` +
      `$KUBERNETES_SERVICE_PORT ${env.KUBERNETES_SERVICE_PORT ? 'is set' : 'is not set'}`,
  );
  throw new KubeConfigError(
    `no Kubernetes configuration found. Searched:\n${searched.map((s) => `  - ${s}`).join('\n')}\n` +
      'To fix: set KUBECONFIG, create ~/.kube/config (e.g. with `kubectl config` or your cluster tool), ' +
      'pass kubeconfigPath or kubeConfig to createKubeClient, or run in a pod with a service account.',
    { searched },
  );
}

function saFile(dir: string, name: string): string {
  return path.join(dir, name);
}

/** client-node's home lookup: `$HOME` when it exists; on Windows also `%USERPROFILE%`, `%HOMEDRIVE%%HOMEPATH%`. */
function homeDir(env: KubeConfigEnv): string | undefined {
  const candidates = [env.HOME];
  if (process.platform === 'win32') {
    candidates.push(
      env.USERPROFILE,
      env.HOMEDRIVE && env.HOMEPATH ? env.HOMEDRIVE + env.HOMEPATH : undefined,
    );
  }
  for (const dir of candidates) {
    if (!dir) continue;
    try {
      accessSync(dir);
      return dir;
    } catch {
      // Not there: try the next one.
    }
  }
  return undefined;
}

function inClusterProblems(env: KubeConfigEnv, dir: string): string[] {
  const problems: string[] = [];
  if (!env.KUBERNETES_SERVICE_HOST) problems.push('KUBERNETES_SERVICE_HOST is not set');
  if (!env.KUBERNETES_SERVICE_PORT) problems.push('KUBERNETES_SERVICE_PORT is not set');
  if (!existsSync(saFile(dir, 'token'))) problems.push(`${saFile(dir, 'token')} does not exist`);
  return problems;
}

/** What client-node's `loadFromCluster` builds, from the given environment and directory. */
function loadInCluster(env: KubeConfigEnv, dir: string): FoundKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST as string;
  const server = `https://${net.isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  const namespaceFile = saFile(dir, 'namespace');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'inCluster', server, caFile: saFile(dir, 'ca.crt'), skipTLSVerify: false }],
    users: [
      {
        name: 'inClusterUser',
        authProvider: { name: 'tokenFile', config: { tokenFile: saFile(dir, 'token') } },
      },
    ],
    contexts: [
      {
        name: 'inClusterContext',
        cluster: 'inCluster',
        user: 'inClusterUser',
        ...(existsSync(namespaceFile) ? { namespace: readFileSync(namespaceFile, 'utf8').trim() } : {}),
      },
    ],
    currentContext: 'inClusterContext',
  });
  return { kubeConfig: kc, origin: 'the in-cluster service account', files: [], fileOf: () => undefined };
}

/**
 * Loads kubeconfig files and merges them with kubectl's rules: the first file to define a name
 * wins, and so does the first file to set current-context. Relative certificate paths are resolved
 * against the directory of the file that names them.
 */
function loadFiles(files: readonly string[]): FoundKubeConfig {
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  const fileOf = {
    context: new Map<string, string>(),
    cluster: new Map<string, string>(),
    user: new Map<string, string>(),
  };
  let currentContext: string | undefined;
  for (const file of files) {
    const kc = loadFile(file);
    const add = <T extends { name: string }>(kind: keyof typeof fileOf, into: T[], from: T[]) => {
      for (const entry of from) {
        if (fileOf[kind].has(entry.name)) continue;
        fileOf[kind].set(entry.name, file);
        into.push(entry);
      }
    };
    add('cluster', clusters, kc.getClusters());
    add('user', users, kc.getUsers());
    add('context', contexts, kc.getContexts());
    currentContext ||= kc.getCurrentContext() || undefined;
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({ clusters, users, contexts, currentContext });
  const origin =
    files.length === 1 ? describeFile(files[0] as string) : `kubeconfig files ${files.join(', ')}`;
  return { kubeConfig, origin, files, fileOf: (kind, name) => fileOf[kind].get(name) };
}

function loadFile(file: string): KubeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`${describeFile(file)} cannot be read: ${(err as Error).message}`, {
      file,
      cause: err,
    });
  }
  if (text.trim() === '') {
    throw new KubeConfigError(
      `${describeFile(file)} is empty: write a kubeconfig into it or point to another file`,
      {
        file,
      },
    );
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new KubeConfigError(
      `${describeFile(file)} is invalid: ${(err as Error).message}. Fix the file (\`kubectl config view --kubeconfig ${file}\` shows how kubectl reads it)`,
      { file, cause: err },
    );
  }
  return kc;
}
