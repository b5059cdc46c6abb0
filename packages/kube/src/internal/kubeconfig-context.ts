import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import { KubeConfigError, type KubeConfigErrorLocation } from '../errors.ts';
import type { FoundKubeConfig } from './kubeconfig-sources.ts';
import { parseProxyUrl } from './proxy-url.ts';

/** The context in use, its cluster and user, and how to name them in an error. */
export interface SelectedContext {
  readonly kubeConfig: KubeConfig;
  readonly context: string;
  readonly cluster: Cluster;
  readonly user: User | undefined;
  /** `kubeconfig file F, context "c", cluster "x"` (or user) and the matching error fields. */
  at(owner: 'cluster' | 'user'): { readonly text: string; readonly location: KubeConfigErrorLocation };
}

const names = (list: readonly { name: string }[]) =>
  list.length ? list.map((e) => e.name).join(', ') : 'none';

/**
 * Selects `requested` (or current-context) and checks that its cluster and user exist and that
 * the server URL and any `proxy-url` parse (a proxy scheme kubectl does not support is refused).
 * @throws {@link KubeConfigError} naming the file, the context and the missing entry.
 */
export function selectContext(found: FoundKubeConfig, requested: string | undefined): SelectedContext {
  const kc = found.kubeConfig;
  const single = found.files.length === 1 ? found.files[0] : undefined;
  const contexts = kc.getContexts();
  if (requested !== undefined) {
    if (!kc.getContextObject(requested)) {
      throw new KubeConfigError(
        `context "${requested}" is not in ${found.origin} (available: ${names(contexts)}): pass one of them as the context option, or omit it to use current-context`,
        { file: single, context: requested, field: 'context' },
      );
    }
    kc.setCurrentContext(requested);
  }
  const name = kc.getCurrentContext();
  if (contexts.length === 0 && kc.getClusters().length === 0) {
    throw new KubeConfigError(
      `no cluster found in ${found.origin}: it defines no contexts and no clusters. Add them (\`kubectl config set-cluster\`, \`set-credentials\`, \`set-context\`), or set KUBECONFIG or kubeconfigPath to another kubeconfig`,
      { file: single },
    );
  }
  if (!name) {
    throw new KubeConfigError(
      `${found.origin} sets no current-context (contexts: ${names(contexts)}): pass the context option or run \`kubectl config use-context <name>\``,
      { file: single, field: 'current-context' },
    );
  }
  const context = kc.getContextObject(name);
  if (!context) {
    throw new KubeConfigError(
      `current-context "${name}" in ${found.origin} is not defined (contexts: ${names(contexts)}): run \`kubectl config use-context <name>\` with one of them, or pass the context option`,
      { file: single, context: name, field: 'current-context' },
    );
  }
  const contextFile = found.fileOf('context', name) ?? single;
  const contextWhere = `context "${name}" in ${contextFile ? `kubeconfig file ${contextFile}` : found.origin}`;
  const cluster = kc.getCluster(context.cluster);
  if (!cluster) {
    throw new KubeConfigError(
      `${contextWhere} names cluster "${context.cluster ?? ''}", which is not defined (clusters: ${names(kc.getClusters())}): fix the context's cluster field or add the cluster`,
      { file: contextFile, context: name, cluster: context.cluster, field: 'cluster' },
    );
  }
  // A context may name no user (an unauthenticated or proxied cluster); a named user must exist.
  const user = context.user ? (kc.getUser(context.user) ?? undefined) : undefined;
  if (context.user && !user) {
    throw new KubeConfigError(
      `${contextWhere} names user "${context.user}", which is not defined (users: ${names(kc.getUsers())}): fix the context's user field or add the user`,
      { file: contextFile, context: name, user: context.user, field: 'user' },
    );
  }
  const at = (owner: 'cluster' | 'user') => {
    const entry = owner === 'cluster' ? cluster.name : (user?.name ?? '');
    const file = found.fileOf(owner, entry) ?? single;
    const text = `${file ? `kubeconfig file ${file}` : found.origin}, context "${name}", ${owner} "${entry}"`;
    return { text, location: { file, context: name, [owner]: entry } };
  };
  try {
    new URL(cluster.server);
  } catch {
    const { text, location } = at('cluster');
    throw new KubeConfigError(
      `${text}: invalid server URL "${cluster.server}": set server to the API server's URL, e.g. https://host:6443`,
      { ...location, field: 'server' },
    );
  }
  if (cluster.proxyUrl) {
    try {
      parseProxyUrl(cluster.proxyUrl);
    } catch (err) {
      const { text, location } = at('cluster');
      throw new KubeConfigError(`${text}: ${(err as Error).message}`, {
        ...location,
        field: 'proxy-url',
        cause: err,
      });
    }
  }
  return { kubeConfig: kc, context: name, cluster, user, at };
}
