import type { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { ApiClient } from './api.ts';
import type { CrdWatcher } from './crd-watcher.ts';
import type { InformerKey, SharedInformer, TransformFunc } from './informer.ts';
import type { Logger } from './logger.ts';
import type { KubeObject } from './object.ts';
import type { ObjectFilter } from './object-filter.ts';
import type { ResourceRegistry } from './registry.ts';
import type { TypedResourceDescriptor } from './resource.ts';

/** The server's `/version`. */
export interface ServerVersionInfo {
  /** e.g. `1`. */
  readonly major: string;
  /** e.g. `37`. */
  readonly minor: string;
  /** e.g. `v1.37.2`. */
  readonly gitVersion: string;
  /** Other fields as the server returned them. */
  readonly [key: string]: unknown;
}

/** Options for one shared informer. Informers with equal options are shared. */
export interface InformerOptions {
  /** One namespace, or all namespaces when omitted. */
  readonly namespace?: string | undefined;
  /** Server-side label selector; one the apiserver would refuse throws a `SelectorError` at `informer()`. */
  readonly labelSelector?: string | undefined;
  /** Server-side field selector; a malformed one throws a `SelectorError` at `informer()`. */
  readonly fieldSelector?: string | undefined;
  /**
   * An ingest transform and its name (the name is part of the sharing key). Default: drop
   * `metadata.managedFields`. Pass `{ name: 'none', fn: (o) => o }` to keep everything.
   */
  readonly transform?: { readonly name: string; readonly fn: TransformFunc } | undefined;
}

/** Tuning of the informer engine; every field has a sensible default. */
export interface InformerTuning {
  /**
   * Objects in the first pages of a list (the initial list and every relist). Default 500,
   * client-go's. Pages requested once another was read whole are sized by
   * {@link InformerTuning.pageBytes}; setting `pageSize` without `pageBytes` keeps every page at
   * this size.
   */
  readonly pageSize?: number;
  /**
   * Characters of JSON a list page should hold: each page requested once another was read whole
   * asks for as many objects as fit, going by that page's size per object (at least 1, at most 4×
   * the page before and 5,000). Small objects then come in fewer requests, and pages of large
   * objects stay bounded in memory. Default 4 MiB (4,194,304), unless `pageSize` is set.
   */
  readonly pageBytes?: number;
  /** Reconnect when a watch receives nothing, not even a bookmark, for this long. Default 120 s. */
  readonly idleTimeoutMs?: number;
  /** First reconnect delay. Default 800 ms. */
  readonly initialBackoffMs?: number;
  /** Largest reconnect delay. Default 30 s. */
  readonly maxBackoffMs?: number;
  /** Server-side watch timeout range in seconds, randomized per watch like client-go. Default [300, 600]. */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** Random source for jitter, for deterministic tests. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * One client per cluster: the REST verbs ({@link KubeClient.api}), the resource registry, shared
 * informers, the CRD watcher, and client-node's typed APIs for everything else.
 *
 * Lifecycle (two-phase, as in Istio): construct the client and every informer your controllers
 * need without doing I/O, then call {@link KubeClient.runAndWait} once with the process's signal.
 * Informers requested later are started at once by {@link KubeClient.informer} if the client is
 * already running. Aborting the signal stops the informers; disposing the client
 * (`await using kube = createKubeClient()`) also waits until they stopped and releases its
 * connections.
 */
export interface KubeClient {
  /** The REST verbs against any resource. */
  readonly api: ApiClient;
  /** Kind ⇄ resource mapping, built-in and discovered. */
  readonly registry: ResourceRegistry;
  /** Which CRDs exist. */
  readonly crdWatcher: CrdWatcher;
  /** The client-wide object filter, if any. */
  readonly objectFilter: ObjectFilter | undefined;
  /** The logger every component of this client writes to. */
  readonly logger: Logger;
  /** The kubeconfig, for client-node's typed APIs. The fake cluster has none. */
  readonly kubeConfig: KubeConfig | undefined;
  /**
   * A client-node typed API (`CoreV1Api`, `AppsV1Api`, …) on this cluster.
   * @throws Error on the fake cluster, which has no HTTP endpoint; use {@link KubeClient.api} there.
   */
  makeApiClient<T>(ctor: new (config: never) => T): T;
  /** client-node's generic object API on this cluster. @throws Error on the fake cluster. */
  objectApi(): KubernetesObjectApi;
  /** The server's version. */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo>;
  /**
   * The shared informer for a resource and options: one list/watch per (resource, namespace,
   * label selector, field selector, transform), however many callers ask. The object type follows
   * the descriptor: `kube.informer(builtins.ConfigMap)` is a `SharedInformer<V1ConfigMap>`, an
   * untyped descriptor gives a `SharedInformer<KubeObject>`.
   */
  informer<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts?: InformerOptions,
  ): SharedInformer<T>;
  /** Every informer created so far. */
  informers(): ReadonlyArray<SharedInformer>;
  /**
   * Starts every informer registered so far (and any registered later, at once) and resolves
   * when all have synced: true, or false if `signal` aborted first. Stopping `signal` stops them.
   */
  runAndWait(signal: AbortSignal): Promise<boolean>;
  /** True once {@link KubeClient.runAndWait} was called. */
  isRunning(): boolean;
  /**
   * Waits until every `hasSynced` returns true, polling; logs `name` when the wait is slow.
   * Resolves false if `signal` aborts first.
   */
  waitForCacheSync(name: string, signal: AbortSignal, ...hasSynced: Array<() => boolean>): Promise<boolean>;
  /** Stops every informer and closes connections. The client is unusable afterwards. */
  shutdown(): void;
  /**
   * {@link KubeClient.shutdown}, then waits until every informer's loop has exited and disposes
   * the transport ({@link ApiClient}): nothing of the client is left running. For `await using`.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Describes an informer key as text, for logs: `configmaps.v1 ns=default labels=app=x`. */
export function describeInformerKey(key: InformerKey): string {
  const r = key.resource;
  const parts = [r.group ? `${r.plural}.${r.version}.${r.group}` : `${r.plural}.${r.version}`];
  if (key.namespace) parts.push(`ns=${key.namespace}`);
  if (key.labelSelector) parts.push(`labels=${key.labelSelector}`);
  if (key.fieldSelector) parts.push(`fields=${key.fieldSelector}`);
  if (key.transformName && key.transformName !== 'default') parts.push(`transform=${key.transformName}`);
  return parts.join(' ');
}
