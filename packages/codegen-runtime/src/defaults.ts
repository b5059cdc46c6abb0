import type { JsonSchemaProps } from './json-schema.ts';
import { planOf, type SchemaPlan } from './schema-plan.ts';

/** Drop undeclared fields (the apiserver's pruning). */
const PRUNE = 1;
/** Inside `x-kubernetes-preserve-unknown-fields`: undeclared fields stay, declared ones are pruned inside. */
const KEEP = 2;
/** `apiVersion`, `kind` and `metadata` stay (the root and embedded resources). */
const META = 4;
/** Drop non-nullable `null`s without a default. */
const NULLS = 8;
/** Apply defaults. */
const DEFAULTS = 16;
/** Work on a copy that shares nothing with the input (else in place). */
const COPY = 32;

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** A value no decoding step looks into is copied as `structuredClone` would copy it. */
function copyLeaf(value: unknown): unknown {
  return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
}

function setField(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}

/** A copy of a default value with the defaults below it applied. */
function defaulted(plan: SchemaPlan): unknown {
  return decode(plan.defaultValue, plan, DEFAULTS | COPY);
}

/**
 * The decoding steps `steps` applied to `value` in one top-down walk, in place or (with `COPY`)
 * to a copy that shares nothing with `value`. Each step is the apiserver's, and doing them in
 * one walk gives what doing them one after the other gives: pruning decides which fields of a
 * node stay, null pruning which `null`s stay, and defaulting fills the node before the walk goes
 * down into the values that stayed (a default is only defaulted below, never pruned).
 */
function decode(value: unknown, plan: SchemaPlan | undefined, steps: number): unknown {
  const copyFlag = steps & COPY;
  const copy = copyFlag !== 0;
  if (value === null || typeof value !== 'object') return copy ? copyLeaf(value) : value;
  let flags = steps;
  if (flags & PRUNE && plan?.preserveUnknown) flags = (flags & ~(PRUNE | META)) | KEEP;
  if (!plan) flags &= PRUNE;
  if (Array.isArray(value)) {
    const items = plan?.items;
    let itemFlags = flags & (PRUNE | NULLS | DEFAULTS);
    if (flags & KEEP && items) itemFlags |= KEEP;
    const out = copy ? new Array<unknown>(value.length) : value;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out[i] =
        item === null && flags & DEFAULTS && items && !items.nullable && items.defaultValue !== undefined
          ? defaulted(items)
          : decode(item, items, itemFlags | copyFlag);
    }
    return out;
  }
  if (copy && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return decode(structuredClone(value), plan, steps & ~COPY);
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = copy ? {} : obj;
  const pruning = flags & (PRUNE | KEEP);
  const metaKept = pruning !== 0 && (flags & META || plan?.embedded === true);
  const childSteps = flags & (NULLS | DEFAULTS);
  for (const key of Object.keys(obj)) {
    const child = plan && (plan.properties.get(key) ?? plan.values);
    let prune = 0;
    if (pruning) {
      if (metaKept && META_FIELDS.has(key)) prune = 0;
      else if (plan && (plan.properties.has(key) || plan.additional)) prune = PRUNE;
      else if (flags & PRUNE) {
        if (!copy) delete obj[key];
        continue;
      }
    }
    const v = obj[key];
    // what JSON (the wire) has: a field set to `undefined` is absent, so a default fills it
    if (v === undefined && copy) continue;
    if (v === null && child && !child.nullable && flags & (NULLS | DEFAULTS)) {
      if (child.defaultValue !== undefined) {
        if (flags & DEFAULTS) {
          setField(out, key, defaulted(child));
          continue;
        }
      } else if (flags & NULLS) {
        if (!copy) delete obj[key];
        continue;
      }
    }
    const decoded = decode(v, child, prune | (child ? childSteps : 0) | copyFlag);
    if (copy) setField(out, key, decoded);
    else if (decoded !== v) obj[key] = decoded;
  }
  if (flags & DEFAULTS && plan)
    for (const [key, sub] of plan.defaulted) if (!Object.hasOwn(out, key)) setField(out, key, defaulted(sub));
  return out;
}

/**
 * A copy of `value` pruned, with non-nullable nulls dropped and defaults applied (the apiserver's
 * decoding, in one walk): what `applyDefaults(pruneNulls(prune(structuredClone(value))))` gives.
 */
export function decodeCopy(value: unknown, schema: JsonSchemaProps): unknown {
  return decode(value, planOf(schema), PRUNE | META | NULLS | DEFAULTS | COPY);
}

/**
 * Drops fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`), as
 * the apiserver does before validation: `apiVersion`, `kind` and `metadata` stay at the root and
 * in `x-kubernetes-embedded-resource` objects. Mutates and returns `value`.
 */
export function prune(value: unknown, schema: JsonSchemaProps, root = true): unknown {
  return decode(value, planOf(schema), PRUNE | (root ? META : 0));
}

/**
 * Removes `null` values of fields that are neither nullable nor defaulted (object fields and map
 * values; list items stay), as the apiserver does before defaulting. Mutates and returns `value`.
 */
export function pruneNulls(value: unknown, schema: JsonSchemaProps | undefined): unknown {
  return schema ? decode(value, planOf(schema), NULLS) : value;
}

/**
 * Applies schema defaults top-down, only inside objects that exist (the apiserver's rule: a
 * nested default needs its parent present); a `null` in a non-nullable field with a default is
 * replaced by the default. Mutates and returns `value`.
 */
export function applyDefaults(value: unknown, schema: JsonSchemaProps | undefined): unknown {
  return schema ? decode(value, planOf(schema), DEFAULTS) : value;
}
