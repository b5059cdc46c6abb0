import {
  apiVersionOf,
  type DeleteOptions,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ObjectKey,
  type PatchType,
  type ResourceDescriptor,
  type TypedResourceDescriptor,
  type WriteOptions,
} from '@kubeloom/kube';
import type { V1Scale } from '@kubernetes/client-node';
import type { ApplyConfiguration, ApplyOptions, Scaler, Writer, WriterPatchOptions } from '../interfaces.ts';
import type { LatestReader } from './latest-reader.ts';

/** Where a writer gets its resource: known now, or resolved at the first write (untyped by GVR). */
export type ResourceSource = ResourceDescriptor | (() => Promise<ResourceDescriptor>);

/** Options of {@link ApiWriter}. */
export interface ApiWriterOptions {
  readonly kube: KubeClient;
  readonly resource: ResourceSource;
  /** Default field manager for non-apply writes. */
  readonly fieldManager?: string | undefined;
  /** Runs before every write; throws to refuse it (delayed clients while the CRD is missing). */
  readonly guard?: ((verb: string) => void) | undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withTypeMeta<O extends KubeObject>(r: ResourceDescriptor, obj: O): O {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(r), kind: obj.kind ?? r.kind };
}

function requireStatus(r: ResourceDescriptor, verb: string): void {
  if (r.subresources?.status === false) {
    throw new TypeError(`${r.kind} has no status subresource: ${verb} is not supported`);
  }
}

/** Whether `r` serves the scale subresource (declared by its descriptor). */
export function servesScale(r: ResourceDescriptor): boolean {
  return r.subresources?.scale === true;
}

function requireScale(r: ResourceDescriptor, verb: string): void {
  if (!servesScale(r)) {
    throw new TypeError(
      `${r.kind || r.plural} has no scale subresource (its descriptor does not declare subresources.scale): ${verb} is not supported`,
    );
  }
}

function requirePatchType(
  r: ResourceDescriptor,
  opts: WriterPatchOptions | undefined,
  name: string,
): PatchType {
  const type = opts?.type;
  if (type !== 'merge' && type !== 'json' && type !== 'strategic' && type !== 'apply') {
    throw new TypeError(
      `patch ${r.kind} ${name}: unknown patch type ${JSON.stringify(type)}; pass options with a type, e.g. patch({ name, namespace }, data, { type: 'merge' }) (merge, json, strategic or apply)`,
    );
  }
  if (type === 'strategic' && r.strategicMergePatch !== true) {
    throw new TypeError(
      `patch ${r.kind} ${name}: strategic merge patch is not supported for ${r.kind} (custom resources accept merge and json patches, or server-side apply)`,
    );
  }
  return type;
}

function requireNamespace(r: ResourceDescriptor, verb: string, { name, namespace }: ObjectKey): void {
  if (r.namespaced && !namespace) {
    throw new TypeError(`${verb} ${r.kind} ${name}: ${r.kind} is namespaced, so a namespace is required`);
  }
}

function requireName(r: ResourceDescriptor, verb: string, obj: { metadata?: { name?: string } }): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError(`${verb} ${r.kind}: metadata.name is required`);
  return name;
}

/** The {@link Writer} over `KubeClient.api`. Clients extend it. */
export class ApiWriter<T extends KubeObject> implements Writer<T>, LatestReader<T>, Scaler {
  readonly #kube: KubeClient;
  readonly #source: ResourceSource;
  readonly #fieldManager: string | undefined;
  readonly #guard: ((verb: string) => void) | undefined;
  #resolved: ResourceDescriptor | undefined;

  constructor(options: ApiWriterOptions) {
    this.#kube = options.kube;
    this.#source = options.resource;
    this.#fieldManager = options.fieldManager;
    this.#guard = options.guard;
    if (typeof options.resource !== 'function') this.#resolved = options.resource;
  }

  /** The resource, typed as this writer's objects (the descriptor carries `T`). */
  async #resource(verb: string): Promise<TypedResourceDescriptor<T>> {
    this.#guard?.(verb);
    if (this.#resolved) return this.#resolved;
    const r = await (this.#source as () => Promise<ResourceDescriptor>)();
    this.#resolved = r;
    return r;
  }

  /** The descriptor, when known (an untyped client by GVR knows it after its first write). */
  knownResource(): ResourceDescriptor | undefined {
    return this.#resolved;
  }

  /** {@inheritDoc LatestReader.readLatest} */
  async readLatest(
    name: string,
    namespace: string | undefined,
    signal?: AbortSignal,
  ): Promise<T | undefined> {
    const r = await this.#resource('get');
    requireNamespace(r, 'get', { name, namespace });
    try {
      return await this.#kube.api.get({ resource: r, name, namespace }, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  #opts<O extends WriteOptions>(opts: O | undefined): O {
    const o = (opts ?? {}) as O;
    if (o.fieldManager !== undefined || this.#fieldManager === undefined) return o;
    return { ...o, fieldManager: this.#fieldManager };
  }

  async create(obj: T, opts?: WriteOptions): Promise<T> {
    const r = await this.#resource('create');
    requireNamespace(r, 'create', {
      name: obj.metadata?.name ?? obj.metadata?.generateName ?? '',
      namespace: obj.metadata?.namespace,
    });
    return await this.#kube.api.create(r, withTypeMeta(r, obj), this.#opts(opts));
  }

  async update(obj: T, opts?: WriteOptions): Promise<T> {
    const r = await this.#resource('update');
    requireNamespace(r, 'update', {
      name: requireName(r, 'update', obj),
      namespace: obj.metadata?.namespace,
    });
    return await this.#kube.api.update(r, withTypeMeta(r, obj), this.#opts(opts));
  }

  async updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    const r = await this.#resource('updateStatus');
    requireStatus(r, 'updateStatus');
    requireNamespace(r, 'updateStatus', {
      name: requireName(r, 'updateStatus', obj),
      namespace: obj.metadata?.namespace,
    });
    return await this.#kube.api.update(r, withTypeMeta(r, obj), {
      ...this.#opts(opts),
      subresource: 'status',
    });
  }

  async patch(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<T> {
    return await this.#patch(ref, data, { ...opts, subresource: undefined });
  }

  async patchStatus(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<T> {
    return await this.#patch(ref, data, { ...opts, subresource: 'status' });
  }

  async #patch(
    { name, namespace }: ObjectKey,
    data: unknown,
    opts: WriterPatchOptions & { readonly subresource: 'status' | undefined },
  ): Promise<T> {
    const verb = opts.subresource ? 'patchStatus' : 'patch';
    const r = await this.#resource(verb);
    if (opts.subresource) requireStatus(r, verb);
    const type = requirePatchType(r, opts, name);
    requireNamespace(r, verb, { name, namespace });
    const body = type === 'apply' && isPlainObject(data) ? withTypeMeta(r, data as KubeObject) : data;
    return await this.#kube.api.patch({ resource: r, name, namespace }, body, { ...this.#opts(opts), type });
  }

  async apply(config: ApplyConfiguration<T>, opts: ApplyOptions): Promise<T> {
    return await this.#apply('apply', config, opts);
  }

  async applyStatus(config: ApplyConfiguration<T>, opts: ApplyOptions): Promise<T> {
    return await this.#apply('applyStatus', config, opts);
  }

  async #apply(verb: 'apply' | 'applyStatus', config: ApplyConfiguration<T>, opts: ApplyOptions): Promise<T> {
    const subresource = verb === 'applyStatus' ? 'status' : undefined;
    const r = await this.#resource(verb);
    if (subresource) requireStatus(r, verb);
    const name = requireName(r, verb, config);
    requireNamespace(r, verb, { name, namespace: config.metadata.namespace });
    if (!opts?.fieldManager) {
      throw new TypeError(`${verb} ${r.kind} ${name}: server-side apply needs opts.fieldManager`);
    }
    const body = withTypeMeta(r, config as KubeObject);
    return await this.#kube.api.patch({ resource: r, name, namespace: config.metadata.namespace }, body, {
      ...opts,
      type: 'apply',
      force: opts.force === true,
      subresource,
    });
  }

  async getScale(ref: ObjectKey, opts?: { readonly signal?: AbortSignal | undefined }): Promise<V1Scale> {
    const { name, namespace } = ref;
    const r: ResourceDescriptor = await this.#resource('getScale');
    requireScale(r, 'getScale');
    requireNamespace(r, 'getScale', ref);
    return await this.#kube.api.get<V1Scale>(
      { resource: r, name, namespace },
      {
        signal: opts?.signal,
        subresource: 'scale',
      },
    );
  }

  async updateScale(ref: ObjectKey, replicas: number, opts?: WriteOptions): Promise<V1Scale> {
    const { name, namespace } = ref;
    const r: ResourceDescriptor = await this.#resource('updateScale');
    requireScale(r, 'updateScale');
    requireNamespace(r, 'updateScale', ref);
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new TypeError(
        `updateScale ${r.kind} ${name}: replicas must be a non-negative integer, got ${replicas}`,
      );
    }
    return await this.#kube.api.patch<V1Scale>(
      { resource: r, name, namespace },
      { spec: { replicas } },
      {
        ...this.#opts(opts),
        type: 'merge',
        subresource: 'scale',
      },
    );
  }

  async delete(ref: ObjectKey, opts?: DeleteOptions): Promise<void> {
    const { name, namespace } = ref;
    const r = await this.#resource('delete');
    requireNamespace(r, 'delete', ref);
    await this.#kube.api.delete({ resource: r, name, namespace }, opts);
  }
}
