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

function nested(obj: unknown, jsonPath: string): { found: boolean; value?: unknown; error?: string } {
  let cur = obj;
  const segs = jsonPath.replace(/^\./, '').split('.');
  for (const [i, seg] of segs.entries()) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
      return {
        found: false,
        error: `.${segs.slice(0, i).join('.')} accessor error: ${goJson(cur)} is not a map`,
      };
    }
    if (!(seg in cur)) return { found: false };
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
    invalid(0, `${jsonPath} accessor error: ${goJson(r.value)} is not an int64`);
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
        message: `Invalid value: ${goJson(r.value ?? '')}: ${r.error ?? `${scale.labelSelectorPath} accessor error: ${goJson(r.value)} is not a string`}`,
        source: 'schema',
      });
  }
  return out;
}
