/**
 * What the apiserver does to an object before it is stored, for the resources the fake treats
 * specially: conversions (Secret `stringData`), defaults (namespace and CRD status), validation
 * of names, metadata and data keys, and NamespaceLifecycle admission.
 */

import type { StatusCause } from '../../errors.ts';
import type { ResourceDescriptor } from '../../resource.ts';
import { isObject, type JsonObject } from './json.ts';
import type { ServedResource } from './resource-table.ts';
import * as S from './status.ts';
import { meta, str } from './stored-object.ts';
import { dataKeyCauses, metadataCauses, nameCauses } from './validation.ts';

/** Storage key of CustomResourceDefinitions. */
export const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
/** Storage key of namespaces. */
export const NAMESPACE_STORAGE_KEY = '/namespaces';
const SECRET_STORAGE_KEY = '/secrets';
const CONFIGMAP_STORAGE_KEY = '/configmaps';

/**
 * Defaults of a new object: its status reset when the resource has a status subresource
 * (`resetStatus`), a namespace's name label, finalizer and phase, a CRD's accepted names and
 * conditions (stamped with `timestamp()`).
 */
export function defaultsOnCreate(
  served: ServedResource,
  obj: JsonObject,
  { resetStatus, timestamp }: { readonly resetStatus: boolean; readonly timestamp: () => string },
): void {
  const d = served.descriptor;
  if (resetStatus && d.subresources?.status) {
    if (served.crd !== undefined) delete obj.status;
    else obj.status = served.storageKey === '/pods' ? { phase: 'Pending' } : {};
  }
  if (served.storageKey === NAMESPACE_STORAGE_KEY) {
    const m = meta(obj);
    m.labels = { ...(isObject(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': String(m.name) };
    obj.spec = { finalizers: ['kubernetes'], ...(isObject(obj.spec) ? obj.spec : {}) };
    obj.status = { phase: 'Active', ...(isObject(obj.status) ? obj.status : {}) };
  }
  if (served.storageKey === CRD_STORAGE_KEY) {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const names = isObject(spec.names) ? spec.names : {};
    const kind = String(names.kind ?? '');
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    const time = timestamp();
    obj.status = {
      conditions: [
        {
          type: 'NamesAccepted',
          status: 'True',
          lastTransitionTime: time,
          reason: 'NoConflicts',
          message: 'no conflicts found',
        },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: time,
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ],
      acceptedNames: {
        ...names,
        singular: str(names.singular) ?? kind.toLowerCase(),
        listKind: str(names.listKind) ?? `${kind}List`,
      },
      storedVersions: versions.filter((v) => v.storage === true).map((v) => String(v.name)),
    };
  }
}

/** Conversions the apiserver makes before validation: a Secret's `stringData` joins `data` (base64), its type defaults to `Opaque`. */
export function normalize(served: ServedResource, obj: JsonObject): void {
  if (served.storageKey !== SECRET_STORAGE_KEY) return;
  if (isObject(obj.stringData)) {
    const data: JsonObject = isObject(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
  if (str(obj.type) === undefined) obj.type = 'Opaque';
}

/** What the apiserver validates besides names: labels, annotation keys, ConfigMap and Secret data keys. */
export function objectCauses(served: ServedResource, obj: JsonObject): StatusCause[] {
  const causes = metadataCauses(meta(obj));
  if (served.storageKey === CONFIGMAP_STORAGE_KEY) causes.push(...dataKeyCauses(obj, 'ConfigMap'));
  if (served.storageKey === SECRET_STORAGE_KEY) causes.push(...dataKeyCauses(obj, 'Secret'));
  return causes;
}

/** Validates a new object named `name`: its name, metadata and data keys, and a CRD's name. @throws the apiserver's 422 Invalid. */
export function validateCreate(served: ServedResource, obj: JsonObject, name: string): void {
  const causes: StatusCause[] = [...nameCauses(name, served.storageKey), ...objectCauses(served, obj)];
  if (served.storageKey === CRD_STORAGE_KEY) {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const names = isObject(spec.names) ? spec.names : {};
    const expected = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`;
    if (name !== expected) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
        field: 'metadata.name',
      });
    }
  }
  if (causes.length > 0) throw S.toError(S.invalid(invalidSubject(served), causes, name));
}

/** How the apiserver names an object in Invalid messages: the kind for built-ins, `plural.group` for custom resources. */
export function invalidSubject(served: ServedResource): { name: string; group: string; kind: string } {
  const d = served.descriptor;
  if (served.crd !== undefined) return { name: `${d.plural}.${d.group}`, group: d.group, kind: d.plural };
  return { name: d.group ? `${d.kind}.${d.group}` : d.kind, group: d.group, kind: d.kind };
}

/**
 * NamespaceLifecycle admission of a new object `name` of `d` in `namespace`, whose Namespace
 * object is `ns`: 404 when the namespace does not exist, 403 when it is being deleted.
 */
export function admitToNamespace(
  ns: JsonObject | undefined,
  d: ResourceDescriptor,
  { name, namespace }: { readonly name: string; readonly namespace: string },
): void {
  if (!ns) throw S.toError(S.notFound({ group: '', plural: 'namespaces', kind: 'Namespace' }, namespace));
  if ((ns.metadata as JsonObject).deletionTimestamp) {
    throw S.toError(
      S.failure(403, 'Forbidden', {
        message: `${S.qualifiedResource(d)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        details: {
          name,
          ...(d.group ? { group: d.group } : {}),
          kind: d.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      }),
    );
  }
}
