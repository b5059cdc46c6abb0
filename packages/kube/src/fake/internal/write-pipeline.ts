import { randomUUID } from 'node:crypto';
import type { DeleteOptions, PatchOptions, WriteOptions } from '../../api.ts';
import type { Status } from '../../errors.ts';
import type { KubeObject } from '../../object.ts';
import { apiVersionOf } from '../../resource.ts';
import {
  admitToNamespace,
  CRD_STORAGE_KEY,
  defaultsOnCreate,
  invalidSubject,
  NAMESPACE_STORAGE_KEY,
  normalize,
  objectCauses,
  validateCreate,
} from './admission.ts';
import { applyConflictStatus } from './apply-conflict.ts';
import { deepEqual, isObject, type JsonObject, toJson } from './json.ts';
import { type Shape, schemaShape, tableShape } from './list-keys.ts';
import {
  type FieldScope,
  forgetManagedFields,
  readManagedFields,
  requestedManagedFields,
  serverSideApply,
  trackUpdate,
  writeManagedFields,
} from './managed-fields.ts';
import type { EventType, ObjectHistory } from './object-history.ts';
import { applyConfiguration, checkPatchRequest, parseBody, patchObject } from './patch-document.ts';
import { requestKey } from './request-target.ts';
import type { ResourceTable, ServedResource } from './resource-table.ts';
import * as S from './status.ts';
import { meta, objectKeyOf, outputOf, str } from './stored-object.ts';
import { randomSuffix } from './validation.ts';
import type {
  CreateStep,
  PatchTarget,
  StoredEntry,
  UpdateChange,
  UpdateStep,
  WriteContext,
  WritePipelineOptions,
} from './write-steps.ts';

/** Everything but metadata, status and type: what a generation bump compares. */
function specOf(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** What an apply writes to: the object named, the stored object if any, and the configuration. */
interface ApplyTarget {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly existing: JsonObject | undefined;
  readonly patch: unknown;
}

/**
 * The write side of a fake cluster: seeding, and the apiserver's create, update, patch
 * (merge, JSON, strategic, server-side apply) and delete pipelines with system metadata,
 * optimistic concurrency, generation, managed fields, finalizers and the follow-ups of a write
 * (CRDs served, namespaces cascading).
 */
export class WritePipeline {
  readonly #table: ResourceTable;
  readonly #history: ObjectHistory;
  readonly #strictNamespaces: boolean;
  readonly #defaultManager: string;
  readonly #now: () => Date;
  /** The last {@link WritePipeline.timestamp} and its second since the epoch. */
  #stamp = '';
  #stampSecond = Number.NaN;

  /** A pipeline committing to `options.history`. */
  constructor(options: WritePipelineOptions) {
    this.#table = options.table;
    this.#history = options.history;
    this.#strictNamespaces = options.strictNamespaces;
    this.#defaultManager = options.defaultManager;
    this.#now = options.now;
  }

  /** The current time as the apiserver writes it (seconds precision). */
  timestamp(): string {
    const now = this.#now();
    const second = Math.floor(now.getTime() / 1000);
    if (second !== this.#stampSecond) {
      this.#stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
      this.#stampSecond = second;
    }
    return this.#stamp;
  }

  /** The write context of a request's options. */
  context(opts: WriteOptions): WriteContext {
    return { manager: opts.fieldManager ?? this.#defaultManager, dryRun: opts.dryRun === 'All' };
  }

  /**
   * Stores objects as they are (status, finalizers and given metadata kept; uid, timestamps and
   * resourceVersion filled in), each as one write with an ADDED event. CRDs go first, then
   * namespaces. @throws Error when a kind is not served or an object exists already.
   */
  seed(objects: readonly KubeObject[]): void {
    const rank = (o: KubeObject) =>
      o.kind === 'CustomResourceDefinition' ? 0 : o.kind === 'Namespace' ? 1 : 2;
    for (const input of [...objects].sort((a, b) => rank(a) - rank(b))) {
      const obj = toJson(input) as JsonObject;
      const served = this.#table.lookupKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
      if (!served)
        throw new Error(
          `fake cluster: cannot seed ${obj.apiVersion}/${obj.kind}: the kind is not served (install its CRD first)`,
        );
      const m = meta(obj);
      const name = str(m.name) ?? (str(m.generateName) ? `${m.generateName}${randomSuffix()}` : undefined);
      if (!name) throw new Error('fake cluster: cannot seed an object without metadata.name');
      m.name = name;
      if (served.descriptor.namespaced) m.namespace = str(m.namespace) ?? 'default';
      else delete m.namespace;
      const key = objectKeyOf(str(m.namespace), name);
      if (this.#history.bucket(served.storageKey).has(key))
        throw new Error(`fake cluster: cannot seed ${served.storageKey} ${key}: it exists already`);
      m.uid = str(m.uid) ?? randomUUID();
      m.creationTimestamp = str(m.creationTimestamp) ?? this.timestamp();
      if (this.#table.tracksGeneration(served) && typeof m.generation !== 'number') m.generation = 1;
      delete m.resourceVersion;
      delete m.generateName;
      obj.apiVersion = apiVersionOf(served.descriptor);
      obj.kind = served.descriptor.kind;
      normalize(served, obj);
      defaultsOnCreate(served, obj, { resetStatus: false, timestamp: () => this.timestamp() });
      this.#history.commit(served, { type: 'ADDED', key, next: obj });
    }
  }

  /**
   * PATCH an existing object (or creates one, for `apply`): parses the body, applies the patch of
   * `type`, and runs the update pipeline.
   */
  patch(target: PatchTarget, body: unknown, opts: PatchOptions): KubeObject {
    const { served, name, namespace } = target;
    const { type } = opts;
    checkPatchRequest(served, type, opts);
    const patch = parseBody(body, type);
    const storageKey = requestKey(served, namespace, name);
    const existing = this.#history.bucket(served.storageKey).get(storageKey);
    if (type === 'apply') return this.#apply(served, { name, namespace, existing, patch }, opts);
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const patched = patchObject(existing, patch, type);
    return this.update(
      served,
      { existing, incoming: patched },
      { subresource: opts.subresource, ctx: this.context(opts) },
    );
  }

  /** The create pipeline: name generation, validation, admission, system metadata, managed fields. */
  create(served: ServedResource, obj: JsonObject, step: CreateStep): KubeObject {
    const { namespace, ctx, managed } = step;
    const d = served.descriptor;
    const m = meta(obj);
    if (str(m.resourceVersion) !== undefined) {
      throw S.toError(
        S.failure(500, 'InternalError', {
          message: 'Internal error occurred: resourceVersion should not be set on objects to be created',
        }),
      );
    }
    let name = str(m.name);
    const bucket = this.#history.bucket(served.storageKey);
    if (!name && str(m.generateName)) {
      do name = `${m.generateName}${randomSuffix()}`;
      while (bucket.has(objectKeyOf(d.namespaced ? namespace : undefined, name)));
    }
    if (!name) {
      throw S.toError(
        S.invalid(
          invalidSubject(served),
          [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: name or generateName is required',
              field: 'metadata.name',
            },
          ],
          '',
        ),
      );
    }
    normalize(served, obj);
    validateCreate(served, obj, name);
    const key = requestKey(served, namespace, name);
    if (d.namespaced && this.#strictNamespaces) {
      admitToNamespace(this.#history.bucket(NAMESPACE_STORAGE_KEY).get(namespace!), d, {
        name,
        namespace: namespace!,
      });
    }
    if (bucket.has(key)) throw S.toError(S.alreadyExists(d, name));
    obj.apiVersion = apiVersionOf(d);
    obj.kind = d.kind;
    m.name = name;
    if (d.namespaced) m.namespace = namespace;
    else delete m.namespace;
    m.uid = randomUUID();
    m.creationTimestamp = this.timestamp();
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (this.#table.tracksGeneration(served)) m.generation = 1;
    else delete m.generation;
    defaultsOnCreate(served, obj, { resetStatus: true, timestamp: () => this.timestamp() });
    const time = this.timestamp();
    const requested = managed ? undefined : requestedManagedFields(obj, undefined);
    const entries =
      managed ??
      (requested === 'reset'
        ? []
        : trackUpdate(
            requested ?? [],
            { before: undefined, after: obj },
            { who: { manager: ctx.manager, apiVersion: apiVersionOf(d), time }, shape: this.#shape(served) },
          ));
    writeManagedFields(obj, entries);
    if (ctx.dryRun) return outputOf(served, obj);
    return outputOf(served, this.#history.commit(served, { type: 'ADDED', key, next: obj }));
  }

  /**
   * The update pipeline shared by PUT, PATCH and apply: subresource rules, system metadata,
   * optimistic concurrency, generation, managed fields, no-op detection, finalizer-driven delete.
   */
  update(served: ServedResource, change: UpdateChange, step: UpdateStep): KubeObject {
    const { existing, incoming } = change;
    const { subresource, ctx, managed } = step;
    const d = served.descriptor;
    const old = existing.metadata as JsonObject;
    const name = String(old.name);
    const inMeta = meta(incoming);
    const rv = str(inMeta.resourceVersion);
    if (rv !== undefined && rv !== old.resourceVersion) throw S.toError(S.conflict(d, name));
    const uid = str(inMeta.uid);
    if (uid !== undefined && uid !== old.uid) {
      throw S.toError(
        S.failure(409, 'Conflict', {
          message: `Operation cannot be fulfilled on ${S.qualifiedResource(d)} "${name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(old.uid)}`,
          details: {
            name,
            ...(d.group ? { group: d.group } : {}),
            kind: d.plural,
          },
        }),
      );
    }
    const hasStatus = Boolean(d.subresources?.status);
    let next: JsonObject;
    if (subresource === 'status') {
      // Only the top level and metadata change here: the rest stays shared with the frozen stored object.
      next = { ...existing, metadata: { ...old } };
      // `incoming` is the request's own copy (its unchanged parts the stored object's frozen
      // ones, see toJsonSharing), or a patch of a copy: stored as it is.
      if (incoming.status !== undefined) next.status = incoming.status;
      else delete next.status;
    } else {
      // Only the top level and metadata change below; deeper parts are the request's own copy
      // (sharing the stored object's frozen parts it does not change), or a patch of a copy,
      // stored as they are.
      next = { ...incoming, metadata: { ...meta(incoming) } };
      if (hasStatus) {
        if (existing.status !== undefined) next.status = existing.status;
        else delete next.status;
      }
      const m = meta(next);
      for (const k of [
        'name',
        'namespace',
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
        'managedFields',
      ]) {
        if (old[k] !== undefined) m[k] = old[k];
        else delete m[k];
      }
      delete m.selfLink;
      delete m.generateName;
      if (old.generateName !== undefined) m.generateName = old.generateName;
      if (old.deletionTimestamp) {
        const before = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
        const added = (Array.isArray(m.finalizers) ? m.finalizers : []).filter((f) => !before.has(f));
        if (added.length > 0) {
          throw S.toError(
            S.invalid(
              invalidSubject(served),
              [
                {
                  reason: 'FieldValueForbidden',
                  message:
                    'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{' +
                    added.map((f) => JSON.stringify(f)).join(', ') +
                    '}',
                  field: 'metadata.finalizers',
                },
              ],
              name,
            ),
          );
        }
      }
    }
    next.apiVersion = apiVersionOf(d);
    next.kind = d.kind;
    const nm = meta(next);
    nm.resourceVersion = old.resourceVersion;
    if (subresource !== 'status') normalize(served, next);
    const metaProblems = subresource === 'status' ? [] : objectCauses(served, next);
    if (metaProblems.length > 0) throw S.toError(S.invalid(invalidSubject(served), metaProblems, name));
    if (this.#table.tracksGeneration(served) && !deepEqual(specOf(next), specOf(existing))) {
      nm.generation = (typeof old.generation === 'number' ? old.generation : 0) + 1;
    }
    const time = this.timestamp();
    const requested = managed ? undefined : requestedManagedFields(incoming, existing);
    const entries =
      managed ??
      (requested === 'reset'
        ? []
        : trackUpdate(
            requested ?? readManagedFields(existing),
            { before: existing, after: next },
            {
              who: {
                manager: ctx.manager,
                apiVersion: apiVersionOf(d),
                subresource: subresource || undefined,
                time,
              },
              shape: this.#shape(served),
            },
          ));
    writeManagedFields(next, entries);
    if (deepEqual(next, existing)) return outputOf(served, existing);
    const key = objectKeyOf(str(old.namespace), name);
    const finalizers = Array.isArray(nm.finalizers) ? nm.finalizers : [];
    if (nm.deletionTimestamp && finalizers.length === 0) {
      if (!ctx.dryRun) this.#history.commit(served, { type: 'DELETED', key, next: existing, prev: existing });
      return outputOf(served, next);
    }
    if (ctx.dryRun) return outputOf(served, next);
    const stored = this.#history.commit(served, { type: 'MODIFIED', key, next, prev: existing });
    // The replaced version is history now: no write starts from it again.
    forgetManagedFields(existing);
    return outputOf(served, stored);
  }

  /** Server-side apply: creates the object or merges the configuration into it, owning its fields for the manager. */
  #apply(served: ServedResource, target: ApplyTarget, opts: PatchOptions): KubeObject {
    const { name, namespace, existing, patch } = target;
    const ctx = this.context(opts);
    const d = served.descriptor;
    const config = applyConfiguration(patch, d, name);
    const cm = meta(config);
    const subresource = opts.subresource || undefined;
    const hasStatus = Boolean(d.subresources?.status);
    const scope: FieldScope = subresource === 'status' ? 'status' : hasStatus ? 'main' : 'all';
    const time = this.timestamp();
    const who = {
      manager: ctx.manager,
      apiVersion: apiVersionOf(d),
      subresource,
      time,
      force: opts.force === true,
    };
    const shape = this.#shape(served);
    if (!existing) {
      if (subresource) throw S.toError(S.notFound(d, name));
      const result = serverSideApply({ live: undefined, config }, who, { scope, shape });
      const obj = result.object;
      const m = meta(obj);
      m.name = name;
      if (d.namespaced) m.namespace = namespace;
      return this.create(served, obj, { namespace, ctx, managed: result.entries });
    }
    const result = serverSideApply({ live: existing, config }, who, { scope, shape });
    if (result.conflicts.length > 0) throw S.toError(applyConflictStatus(result.conflicts));
    const next = result.object;
    const m = meta(next);
    m.resourceVersion = (existing.metadata as JsonObject).resourceVersion;
    if (str(cm.resourceVersion) !== undefined) m.resourceVersion = cm.resourceVersion;
    return this.update(served, { existing, incoming: next }, { subresource, ctx, managed: result.entries });
  }

  /** The delete pipeline: marks the object when finalizers remain (or propagation adds some), removes it otherwise. */
  delete(served: ServedResource, stored: StoredEntry, opts: DeleteOptions): KubeObject | Status {
    const { key, object: existing } = stored;
    const dryRun = opts.dryRun === 'All';
    const d = served.descriptor;
    const old = existing.metadata as JsonObject;
    const finalizers = Array.isArray(old.finalizers) ? [...(old.finalizers as string[])] : [];
    if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
      finalizers.push('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (finalizers.length > 0) {
      if (
        old.deletionTimestamp &&
        finalizers.length === (Array.isArray(old.finalizers) ? old.finalizers.length : 0)
      ) {
        return outputOf(served, existing);
      }
      // Only the top level and metadata change: the rest stays shared with the frozen stored object.
      const next: JsonObject = { ...existing, metadata: { ...old } };
      const m = meta(next);
      m.finalizers = finalizers;
      if (!m.deletionTimestamp) {
        m.deletionTimestamp = this.timestamp();
        m.deletionGracePeriodSeconds = 0;
        if (typeof m.generation === 'number') m.generation += 1;
        // A namespace held by finalizers is Terminating, and refuses new content.
        if (served.storageKey === NAMESPACE_STORAGE_KEY)
          next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
      }
      if (dryRun) return outputOf(served, next);
      return outputOf(served, this.#history.commit(served, { type: 'MODIFIED', key, next, prev: existing }));
    }
    if (dryRun) return S.deleted(d, String(old.name), str(old.uid));
    this.#history.commit(served, { type: 'DELETED', key, next: existing, prev: existing });
    return S.deleted(d, String(old.name), str(old.uid));
  }

  /** Follow-ups of a write (the history's commit hook): CRDs start or stop being served; namespaces cascade. */
  afterCommit(served: ServedResource, type: EventType, obj: JsonObject): void {
    if (served.storageKey === CRD_STORAGE_KEY) {
      const name = String((obj.metadata as JsonObject).name);
      if (type === 'DELETED') {
        for (const r of this.#table.all().filter((r) => r.crd === name)) this.#dropAll(r);
        this.#table.unserveCrd(name);
      } else {
        this.#table.serveCrd(obj);
      }
    } else if (served.storageKey === NAMESPACE_STORAGE_KEY && type === 'DELETED') {
      const ns = String((obj.metadata as JsonObject).name);
      for (const r of this.#table.all()) {
        if (!r.descriptor.namespaced) continue;
        for (const [key, o] of [...this.#history.bucket(r.storageKey)]) {
          if (
            (o.metadata as JsonObject).namespace === ns &&
            this.#history.bucket(r.storageKey).get(key) === o
          ) {
            this.delete(r, { key, object: o }, {});
          }
        }
      }
    }
  }

  /** Removes every object of a resource whose CRD is gone, and ends its watches. */
  #dropAll(served: ServedResource): void {
    const bucket = this.#history.bucket(served.storageKey);
    for (const [key, o] of [...bucket])
      this.#history.commit(served, { type: 'DELETED', key, next: o, prev: o });
    this.#history.endWatchesOf(served.storageKey);
  }

  /** How server-side apply merges the resource's lists and maps: the field-name table, or the CRD's schema. */
  #shape(served: ServedResource): Shape {
    return served.crd !== undefined ? schemaShape(served.schema) : tableShape();
  }
}
