import type { ListOptions, WatchOptions } from '../api.ts';
import type { ServerVersionInfo } from '../client.ts';
import type { Status } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceDescriptor } from '../resource.ts';

/** The verbs of the fake cluster, as seen by failure injection and request observers. */
export type FakeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'request';

/** Which resource a failure, delay or count applies to: any descriptor, matched by group and plural. */
export type ResourceMatcher = Pick<ResourceDescriptor, 'group' | 'plural'>;

/** Options of a {@link FakeCluster}. */
export interface FakeClusterOptions {
  /** Objects present from the start (CRDs among them are installed first, then namespaces, then the rest). */
  readonly objects?: readonly KubeObject[];
  /** CustomResourceDefinitions to install before `objects`. */
  readonly crds?: readonly KubeObject[];
  /** Extra resources to serve besides the built-ins and CRDs (e.g. an aggregated API). */
  readonly resources?: readonly ResourceDescriptor[];
  /** What `GET /version` answers. Default: v1.37.2 with `gitVersion` `v1.37.2-fake`. */
  readonly version?: Partial<ServerVersionInfo>;
  /** How many events the watch history keeps before compacting the oldest. Default 10 000. */
  readonly historyLimit?: number;
  /** Interval of periodic BOOKMARK events for watches that allow them. Default 60 000 ms (the apiserver sends one about every minute); 0 disables. */
  readonly bookmarkIntervalMs?: number;
  /**
   * Refuse to create namespaced objects in a namespace that does not exist (404) or is being
   * deleted (403), as the apiserver's NamespaceLifecycle admission does. Default false: unit
   * tests need not create namespaces.
   */
  readonly strictNamespaces?: boolean;
  /**
   * The field manager of non-apply writes that name none. Default `kubeloom`: what the apiserver
   * derives from the User-Agent of kubeloom's HTTPS client.
   */
  readonly defaultFieldManager?: string;
  /** The clock for timestamps. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** What a failure injection answers: a full Status, or its parts. */
export interface FailureOptions {
  /** Only requests for this resource fail; default: any resource. */
  readonly resource?: ResourceMatcher | undefined;
  /** The HTTP status code. Default 500. */
  readonly code?: number | undefined;
  /** The Status reason. Default: the code's standard reason (`InternalError`, `TooManyRequests`, …). */
  readonly reason?: string | undefined;
  /** The message. Default: a description of the injected failure. */
  readonly message?: string | undefined;
  /** For 429/503/504: the Retry-After the server asks for. */
  readonly retryAfterSeconds?: number | undefined;
  /** A complete Status to return instead of one built from the fields above. */
  readonly status?: Status | undefined;
}

/** One request to the fake cluster, as request observers receive it. */
export interface FakeRequest {
  /** The verb. */
  readonly verb: FakeVerb;
  /** The resource, for the typed verbs. */
  readonly resource?: ResourceDescriptor | undefined;
  /** The namespace, when there is one. */
  readonly namespace?: string | undefined;
  /** The object name, when there is one. */
  readonly name?: string | undefined;
  /** The subresource, e.g. `status`. */
  readonly subresource?: string | undefined;
  /** List or watch options. */
  readonly options?: ListOptions | WatchOptions | undefined;
  /** For `request`: the method and path. */
  readonly method?: string | undefined;
  /** For `request`: the path. */
  readonly path?: string | undefined;
}

/** Receives every request before it is served (failures and delays included). */
export type RequestObserver = (request: FakeRequest) => void;
