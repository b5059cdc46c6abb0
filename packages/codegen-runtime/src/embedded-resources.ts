import type { JsonSchemaProps } from './json-schema.ts';
import { isObject } from './json-value.ts';
import { coerceObjectMeta, regexError, tooLong, validateObjectMeta } from './object-meta.ts';
import { planOf, type SchemaPlan } from './schema-plan.ts';
import { childPath, goJson, keyPath, type ValidationError } from './validation-error.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** apimachinery's `IsDNS1035Label`. */
function dns1035LabelErrors(s: string): string[] {
  const errs: string[] = [];
  const long = tooLong(s, 63);
  if (long) errs.push(long);
  if (!DNS1035_LABEL.test(s))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

function checkTypeMeta(x: Record<string, unknown>, path: string, out: ValidationError[]): void {
  const invalid = (k: string, v: unknown, detail: string) =>
    out.push({
      path: childPath(path, k),
      message: `Invalid value: ${goJson(v)}: ${detail}`,
      source: 'embedded',
    });
  for (const k of ['apiVersion', 'kind']) {
    if (x[k] === undefined)
      out.push({ path: childPath(path, k), message: 'Required value', source: 'embedded' });
  }
  const av = x.apiVersion;
  if (av !== undefined) {
    if (typeof av !== 'string') invalid('apiVersion', av, 'must be a string');
    else if (av === '') invalid('apiVersion', av, 'must not be empty');
    else if (av !== '/' && av.split('/').length > 2)
      invalid('apiVersion', av, `unexpected GroupVersion string: ${av}`);
  }
  const kind = x.kind;
  if (kind !== undefined) {
    if (typeof kind !== 'string') invalid('kind', kind, 'must be a string');
    else if (kind === '') invalid('kind', kind, 'must not be empty');
    else {
      const errs = dns1035LabelErrors(kind.toLowerCase());
      if (errs.length > 0)
        invalid('kind', kind, `may have mixed case, but should otherwise match: ${errs.join(',')}`);
    }
  }
}

/** One walk of a value for embedded resources, and the errors it found. */
class EmbeddedResourceWalk {
  readonly errors: ValidationError[] = [];

  visit(x: unknown, plan: SchemaPlan, path: string): void {
    const out = this.errors;
    if (Array.isArray(x)) {
      const items = plan.items;
      if (items?.embeddedBelow)
        for (let i = 0; i < x.length; i++) this.visit(x[i], items, childPath(path, i));
      return;
    }
    if (!isObject(x)) return;
    if (plan.embedded) {
      checkTypeMeta(x, path, out);
      if ('metadata' in x) {
        const meta = coerceObjectMeta(x.metadata, childPath(path, 'metadata'), out);
        if (meta === undefined) delete x.metadata;
        else {
          x.metadata = meta;
          validateObjectMeta(meta, childPath(path, 'metadata'), out);
        }
      }
    }
    for (const [k, v] of Object.entries(x)) {
      const sub = plan.properties.get(k);
      if (sub) {
        if (sub.embeddedBelow) this.visit(v, sub, childPath(path, k));
      } else if (plan.values?.embeddedBelow) this.visit(v, plan.values, keyPath(path, k));
    }
  }
}

/**
 * Checks the objects marked `x-kubernetes-embedded-resource` as the apiserver does: `apiVersion`
 * and `kind` are required non-empty strings (a valid group/version, a DNS-1035 kind ignoring
 * case), and `metadata` is decoded as `ObjectMeta` (unknown fields dropped, in place) and
 * validated. Returns the errors.
 */
export function validateEmbeddedResources(value: unknown, schema: JsonSchemaProps): ValidationError[] {
  const walk = new EmbeddedResourceWalk();
  const plan = planOf(schema);
  if (plan.embeddedBelow && isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const sub = plan.properties.get(k);
      if (sub?.embeddedBelow && k !== 'metadata') walk.visit(v, sub, k);
    }
  }
  return walk.errors;
}
