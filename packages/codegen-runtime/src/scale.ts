import { goJson, type ValidationError } from './validation-error.ts';

/** The paths of a CRD's scale subresource (`subresources.scale`). */
export interface ScalePaths {
  /** JSONPath of the desired replicas, e.g. `.spec.replicas`. */
  readonly specReplicasPath: string;
  /** JSONPath of the observed replicas, e.g. `.status.replicas`. */
  readonly statusReplicasPath: string;
  /** JSONPath of the serialized label selector, e.g. `.status.selector`. */
  readonly labelSelectorPath?: string | undefined;
}

const MAX_INT32 = 2 ** 31 - 1;

/** Go's `%v` of a decoded JSON value (`unstructured` holds int64, float64, bool, string, slices and maps). */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  return String(v);
}

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** The accessor error of `unstructured.NestedFieldNoCopy` and its typed variants. */
function accessorError(path: string, value: unknown, expected: string): string {
  return `${path} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected ${expected}`;
}

/** `unstructured.NestedFieldNoCopy`: a null or missing step is not found, a non-map step an error. */
function nested(obj: unknown, jsonPath: string): { found: boolean; value?: unknown; error?: string } {
  let cur = obj;
  const segs = jsonPath.replace(/^\./, '').split('.');
  for (const [i, seg] of segs.entries()) {
    if (cur === null || cur === undefined) return { found: false };
    if (typeof cur !== 'object' || Array.isArray(cur)) {
      return {
        found: false,
        error: accessorError(`.${segs.slice(0, i + 1).join('.')}`, cur, 'map[string]interface{}'),
      };
    }
    if (!Object.hasOwn(cur, seg) || (cur as Record<string, unknown>)[seg] === undefined)
      return { found: false };
    cur = (cur as Record<string, unknown>)[seg];
  }
  return { found: true, value: cur };
}

function replicas(obj: unknown, jsonPath: string, out: ValidationError[]): void {
  const r = nested(obj, jsonPath);
  const invalid = (value: unknown, detail: string) =>
    out.push({ path: jsonPath, message: `Invalid value: ${goJson(value)}: ${detail}`, source: 'schema' });
  if (r.error) invalid(0, r.error);
  else if (!r.found) return;
  else if (typeof r.value !== 'number' || !Number.isInteger(r.value))
    invalid(0, accessorError(jsonPath, r.value, 'int64'));
  else if (r.value < 0) invalid(r.value, 'should be a non-negative integer');
  else if (r.value > MAX_INT32) invalid(r.value, `should be less than or equal to ${MAX_INT32}`);
}

/**
 * Checks the scale subresource paths as the apiserver does on every write: the replica counts
 * (when present) are integers between 0 and 2^31-1, the label selector (when present) a string.
 */
export function validateScale(obj: unknown, scale: ScalePaths): ValidationError[] {
  const out: ValidationError[] = [];
  replicas(obj, scale.specReplicasPath, out);
  replicas(obj, scale.statusReplicasPath, out);
  if (scale.labelSelectorPath) {
    const r = nested(obj, scale.labelSelectorPath);
    if (r.error || (r.found && typeof r.value !== 'string'))
      out.push({
        path: scale.labelSelectorPath,
        message: `Invalid value: "": ${r.error ?? accessorError(scale.labelSelectorPath, r.value, 'string')}`,
        source: 'schema',
      });
  }
  return out;
}
