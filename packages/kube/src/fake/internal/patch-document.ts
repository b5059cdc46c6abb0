import { loadYaml } from '@kubernetes/client-node';
import type { PatchOptions, PatchType } from '../../api.ts';
import type { ResourceDescriptor } from '../../resource.ts';
import { apiVersionOf, parseApiVersion } from '../../resource.ts';
import { isObject, type JsonObject, toJson } from './json.ts';
import { applyJsonPatch, JsonPatchError } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import type { ServedResource } from './resource-table.ts';
import * as S from './status.ts';
import { meta, str } from './stored-object.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

/**
 * What the apiserver refuses about a PATCH before reading its body: a strategic merge patch of
 * a resource that has no strategy (415), an apply patch without a field manager (422).
 */
export function checkPatchRequest(served: ServedResource, type: PatchType, opts: PatchOptions): void {
  if (type === 'strategic' && !served.descriptor.strategicMergePatch) throw S.toError(S.unsupportedPatch());
  if (type === 'apply' && !opts.fieldManager) {
    throw S.toError(
      S.failure(422, 'Invalid', {
        message:
          'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        details: {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: is required for apply patch',
              field: 'fieldManager',
            },
          ],
        },
      }),
    );
  }
}

/** The patch document of a body: JSON (or YAML, for apply patches) text parsed, an object made plain JSON. 400 when it does not parse. */
export function parseBody(body: unknown, type: PatchType): unknown {
  if (typeof body !== 'string') return toJson(body);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    if (type !== 'apply') throw S.toError(S.badRequest('invalid JSON patch'));
    try {
      return toJson(loadYaml<unknown>(body));
    } catch (err) {
      throw S.toError(S.badRequest(`error decoding YAML: ${(err as Error).message}`));
    }
  }
}

/**
 * `existing` (a stored, deep-frozen object, not modified) with a merge, strategic merge or JSON
 * patch applied: the parts the patch does not change are `existing`'s own (frozen, shared), the
 * rest is new. 400 for a malformed JSON patch, 422 when the patch does not apply or the result is
 * not an object.
 */
export function patchObject(existing: JsonObject, patch: unknown, type: PatchType): JsonObject {
  let patched: unknown;
  // Merge and strategic merge patches build new maps and lists and never change their target.
  if (type === 'merge') patched = applyMergePatch(existing, patch);
  else if (type === 'strategic') patched = applyStrategicMergePatch(existing, patch);
  else {
    try {
      patched = applyJsonPatch(existing, patch);
    } catch (err) {
      if (err instanceof JsonPatchError && err.malformed)
        throw S.toError(S.badRequest(`invalid JSON patch: ${err.message}`));
      throw S.toError(S.patchRejected());
    }
  }
  if (!isObject(patched)) throw S.toError(S.patchRejected());
  return patched;
}

/**
 * The apply configuration of a server-side apply patch to `name` of `d`: an object whose kind,
 * apiVersion and name (when given) match the request; 400 otherwise.
 */
export function applyConfiguration(patch: unknown, d: ResourceDescriptor, name: string): JsonObject {
  if (!isObject(patch))
    throw S.toError(S.badRequest('error decoding YAML: the apply configuration must be an object'));
  const config = patch;
  if (!str(config.kind) || !str(config.apiVersion)) {
    const missing = !str(config.kind) ? 'Kind' : 'Version';
    throw S.toError(S.badRequest(`Object '${missing}' is missing in '${JSON.stringify(config)}'`));
  }
  const { group, version } = parseApiVersion(String(config.apiVersion));
  if (group !== d.group || version !== d.version || config.kind !== d.kind) {
    throw S.toError(
      S.badRequest(
        `the API version in the data (${String(config.apiVersion)}) does not match the expected API version (${apiVersionOf(d)})`,
      ),
    );
  }
  const cm = meta(config);
  if (str(cm.name) !== undefined && cm.name !== name) {
    throw S.toError(
      S.badRequest(
        `the name of the object (${String(cm.name)}) does not match the name on the URL (${name})`,
      ),
    );
  }
  return config;
}
