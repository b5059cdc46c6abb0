import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { compileRe2 } from './cel/re2.ts';
import { formatChecker } from './formats.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import { uncheckedPatternReason } from './schema-plan.ts';
import { childPath, goJson, ROOT_PATH, type ValidationError } from './validation-error.ts';

const DROP = new Set([
  'description',
  'example',
  'externalDocs',
  'title',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'default',
]);

const MULTIPLE_OF = 'x-kubeloom-multiple-of';
const NUMERIC_RANGE = 'x-kubeloom-numeric-range';
/** The format as the schema gives it (annotation only: Ajv checks the formats of strings). */
const SCHEMA_FORMAT = 'x-kubeloom-format';
/** The enum as the schema lists it (annotation only: Ajv checks `enum` without null). */
const ENUM_VALUES = 'x-kubeloom-enum-values';

/** go-openapi's string checks, in the order it runs them. */
const STRING_KEYWORDS = new Set(['maxLength', 'minLength', 'pattern']);

const INT32 = 2 ** 31;
const INT64 = 2n ** 63n;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * kube-openapi `IsValueValidAgainstRange`: an integer must fit int32 (format `int32`) or int64
 * (any other format), a `float` number must fit float32.
 */
function inNumericRange(value: number, type: string, format: string | undefined): boolean {
  if (type === 'integer') {
    if (!Number.isInteger(value)) return false;
    if (format === 'int32') return value >= -INT32 && value < INT32;
    const big = BigInt(value);
    return big >= -INT64 && big < INT64;
  }
  if (format === 'float') return Math.abs(value) <= FLOAT32_MAX;
  return true;
}

/** go-openapi `swag.IsFloat64AJSONInteger`: an integer up to a relative error of 1e-9. */
function nearInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  if (f < 0) return false;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / (Math.abs(f) + Math.abs(g)) < 1e-9;
}

/**
 * kube-openapi `MultipleOfNativeType`: an integral value is checked with integer arithmetic
 * against the truncated factor (so a factor below 1 rejects every integer), other values with
 * a relative tolerance.
 */
function isMultipleOf(data: number, factor: number): boolean {
  if (Number.isInteger(data)) {
    const f = Math.trunc(factor);
    return f > 0 && data % f === 0;
  }
  if (factor <= 0) return false;
  return nearInteger(factor < 1 ? (1 / factor) * data : data / factor);
}

/** A schema error, with whether it blocks CEL evaluation on the apiserver. */
interface SchemaError extends ValidationError {
  /** The apiserver skips CEL rules when such an error exists. */
  readonly blocking: boolean;
}

/** The compiled structural check of one schema: Ajv with apiserver semantics. */
export interface SchemaCheck {
  /** Checks a pruned and defaulted object (written through `subresource`, if given). */
  check(object: unknown, subresource?: 'status'): SchemaError[];
}

/**
 * The Ajv schema of a CRD schema node; a `pattern` without a faithful JavaScript translation is
 * left out (the CEL walk reports it as not evaluated).
 */
function toAjv(s: JsonSchemaProps, root: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (DROP.has(key)) continue;
    switch (key) {
      case 'properties': {
        const props: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value as Record<string, JsonSchemaProps>)) {
          props[k] = root && k === 'metadata' ? { type: 'object' } : toAjv(v, false);
        }
        out.properties = props;
        break;
      }
      case 'items':
      case 'not':
        out[key] = toAjv(value as JsonSchemaProps, false);
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : toAjv(value as JsonSchemaProps, false);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        out[key] = (value as JsonSchemaProps[]).map((x) => toAjv(x, false));
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        break;
      case 'minimum':
        out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = value;
        break;
      case 'maximum':
        out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = value;
        break;
      case 'multipleOf':
        out[MULTIPLE_OF] = value;
        break;
      case 'type':
        out.type = value;
        if (value === 'integer' || value === 'number')
          out[NUMERIC_RANGE] = `${String(value)}/${s.format ?? ''}`;
        break;
      case 'pattern':
        if (uncheckedPatternReason(String(value)) === undefined) out.pattern = value;
        break;
      case 'format':
        out[SCHEMA_FORMAT] = value;
        if ((s.type === undefined || s.type === 'string') && formatChecker(String(value)))
          out.format = `k8s-${String(value)}`;
        break;
      case 'nullable':
        if (value === true) out.nullable = true;
        break;
      default:
        out[key] = value;
    }
  }
  // kube-openapi types an int-or-string field as `integer,string`
  if (s['x-kubernetes-int-or-string'] === true && out.type === undefined) out.type = ['integer', 'string'];
  if (out.nullable && !out.type) delete out.nullable;
  // The apiserver rejects null for a field with an enum, even a nullable one listing null (and
  // lists null among the supported values).
  if (Array.isArray(out.enum)) {
    out[ENUM_VALUES] = out.enum;
    out.enum = out.enum.filter((x) => x !== null);
  }
  return out;
}

function collectFormats(s: JsonSchemaProps, into: Set<string>): void {
  if (typeof s.format === 'string' && formatChecker(s.format)) into.add(s.format);
  for (const v of Object.values(s.properties ?? {})) collectFormats(v, into);
  if (s.items) collectFormats(s.items, into);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    collectFormats(s.additionalProperties, into);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const x of (s[key] as JsonSchemaProps[] | undefined) ?? []) collectFormats(x, into);
  if (s.not) collectFormats(s.not as JsonSchemaProps, into);
}

/**
 * The path kube-apiserver reports for an OpenAPI schema error at an Ajv instance path: list
 * items as `[index]`, properties and map entries alike as `.name` (kube-openapi joins the path
 * with dots and does not escape keys: the entry `foo.bar` of `spec.resources` is
 * `spec.resources.foo.bar`). The schema tells list indexes from map keys such as `0`. CEL,
 * list-type and embedded-resource errors write map entries as `[key]` instead (`keyPath`).
 */
function renderPath(instancePath: string, schema: JsonSchemaProps, extra?: string): string {
  const segs = instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (extra !== undefined) segs.push(extra);
  let path = '';
  let s: JsonSchemaProps | undefined = schema;
  for (const seg of segs) {
    if (s?.type === 'array' || (s?.items && /^\d+$/.test(seg))) {
      path = childPath(path, Number(seg));
      s = s?.items;
    } else {
      path = childPath(path, seg);
      if (s?.properties && Object.hasOwn(s.properties, seg)) s = s.properties[seg];
      else s = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    }
  }
  return path;
}

/** go-openapi's name of a JSON value's type (`swag`'s `TypeName` of the decoded value). */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `item` or `items`, as `field.TooMany` writes the limit. */
function items(limit: unknown): string {
  return `${String(limit)} item${limit === 1 ? '' : 's'}`;
}

/** The alternative of an `anyOf`/`oneOf` an error sits under, from its schema path. */
function alternative(schemaPath: string): { keyword: string; index: number; at: string } | undefined {
  const m = /^(.*)\/(anyOf|oneOf)\/(\d+)\//.exec(schemaPath);
  return m ? { keyword: m[2]!, index: Number(m[3]), at: m[1]! } : undefined;
}

interface Rendered {
  readonly message: string;
  /** An apiserver error type that stops CEL evaluation (Required, NotSupported, TooLong, TooMany, TypeInvalid). */
  readonly blocking: boolean;
}

/**
 * The apiserver's message for an Ajv error at `path`: kube-openapi's wording with its
 * `<path> in body` prefix, turned into a `field.Error` by apiextensions (`Required`, `NotSupported`,
 * `TooLong`, `TooMany` and `TypeInvalid` by error code, `Invalid` otherwise).
 */
function render(e: ErrorObject, path: string): Rendered {
  const p = e.params as Record<string, unknown>;
  const v = goJson(e.data);
  const body = `${path} in body`;
  switch (e.keyword) {
    case 'required':
      return { message: 'Required value', blocking: true };
    case 'type': {
      // go-openapi checks a field with a format against the format first, for a value that is
      // neither a string nor a list, naming the value's Go format (`int64`, `float64`, or none)
      const format = (e.parentSchema as Record<string, unknown> | undefined)?.[SCHEMA_FORMAT];
      const byFormat =
        typeof format === 'string' &&
        format !== '' &&
        typeof e.data !== 'string' &&
        !Array.isArray(e.data) &&
        e.data !== null;
      const goFormat = typeof e.data === 'number' ? (Number.isInteger(e.data) ? 'int64' : 'float64') : '';
      const [type, got] = byFormat ? [format, goFormat] : [String(p.type), typeName(e.data)];
      return {
        message: `Invalid value: "${got}": ${body} must be of type ${type}: "${got}"`,
        blocking: true,
      };
    }
    case 'format':
      return {
        message: `Invalid value: ${v}: ${body} must be of type ${String(p.format).slice(4)}: ${v}`,
        blocking: true,
      };
    case 'enum':
      return {
        message: `Unsupported value: ${v}: supported values: ${((e.parentSchema as Record<string, unknown[]>)[ENUM_VALUES] ?? (p.allowedValues as unknown[])).map((x) => JSON.stringify(typeof x === 'string' ? x : goJson(x))).join(', ')}`,
        blocking: true,
      };
    case 'maxLength':
      return { message: `Too long: may not be more than ${String(p.limit)} bytes`, blocking: true };
    case 'maxItems':
    case 'maxProperties':
      return {
        message: `Too many: ${Object.keys(e.data as object).length}: must have at most ${items(p.limit)}`,
        blocking: true,
      };
    case 'minLength':
      return {
        message: `Invalid value: ${v}: ${body} should be at least ${String(p.limit)} chars long`,
        blocking: false,
      };
    case 'minItems':
      return {
        message: `Invalid value: ${(e.data as unknown[]).length}: ${body} should have at least ${String(p.limit)} items`,
        blocking: false,
      };
    case 'minProperties':
      return {
        message: `Invalid value: ${Object.keys(e.data as object).length}: ${body} should have at least ${String(p.limit)} properties`,
        blocking: false,
      };
    case 'pattern':
      return { message: `Invalid value: ${v}: ${body} should match '${String(p.pattern)}'`, blocking: false };
    case 'minimum':
    case 'exclusiveMinimum':
      return {
        message: `Invalid value: ${v}: ${body} should be greater than ${e.keyword === 'minimum' ? 'or equal to ' : ''}${String(p.limit)}`,
        blocking: false,
      };
    case 'maximum':
    case 'exclusiveMaximum':
      return {
        message: `Invalid value: ${v}: ${body} should be less than ${e.keyword === 'maximum' ? 'or equal to ' : ''}${String(p.limit)}`,
        blocking: false,
      };
    case NUMERIC_RANGE: {
      const [type, format] = String(e.schema).split('/');
      return {
        message: `Invalid value: "": Checked value must be of type ${type} ${format ? `with format ${format}` : '(default format)'} in ${path}`,
        blocking: false,
      };
    }
    case MULTIPLE_OF: {
      // an integer is checked against the truncated factor, which must stay positive
      const factor = Math.trunc(Number(e.schema));
      if (Number.isInteger(e.data) && factor <= 0)
        return {
          message: `Invalid value: ${factor}: factor MultipleOf declared for ${path} must be positive: ${factor}`,
          blocking: false,
        };
      return {
        message: `Invalid value: ${v}: ${body} should be a multiple of ${String(e.schema)}`,
        blocking: false,
      };
    }
    case 'anyOf':
      return {
        message: `Invalid value: "": "${path}" must validate at least one schema (anyOf)`,
        blocking: false,
      };
    case 'oneOf': {
      const passing = (p.passingSchemas as number[] | null) ?? [];
      return {
        message: `Invalid value: "": "${path}" must validate one and only one schema (oneOf). ${passing.length ? `Found ${passing.length} valid alternatives` : 'Found none valid'}`,
        blocking: false,
      };
    }
    case 'not':
      return { message: `Invalid value: "": "${path}" must not validate the schema (not)`, blocking: false };
    default:
      return { message: `Invalid value: ${v}: ${body} ${e.message ?? e.keyword}`, blocking: false };
  }
}

/** Compiles the structural check of a CRD schema (Ajv, apiserver formats, RE2 patterns, multipleOf). */
export function compileSchemaCheck(schema: JsonSchemaProps): SchemaCheck {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    logger: false,
    verbose: true,
    code: { regExp: Object.assign((p: string) => compileRe2(p), { code: 'compileRe2' }) },
  });
  ajv.addKeyword({
    keyword: NUMERIC_RANGE,
    type: 'number',
    schemaType: 'string',
    validate: (spec: string, data: number) => {
      const [type = '', format] = spec.split('/');
      return inNumericRange(data, type, format || undefined);
    },
  });
  ajv.addKeyword({
    keyword: MULTIPLE_OF,
    type: 'number',
    schemaType: 'number',
    validate: (factor: number, data: number) => isMultipleOf(data, factor),
  });
  const formats = new Set<string>();
  collectFormats(schema, formats);
  for (const f of formats) ajv.addFormat(`k8s-${f}`, { type: 'string', validate: formatChecker(f)! });
  const fn: ValidateFunction = ajv.compile(toAjv(schema, true));
  return {
    check(object: unknown, subresource?: 'status'): SchemaError[] {
      if (fn(object)) return [];
      const out: SchemaError[] = [];
      const seen = new Set<string>();
      const errors = fn.errors ?? [];
      // kube-openapi reports the failures of one alternative of a failed anyOf/oneOf, none when
      // some alternative passed (a oneOf with several); Ajv reports them all. The first is kept.
      const composed = new Map(
        errors
          .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
          .map((e) => [e.schemaPath, (e.params as { passingSchemas?: unknown }).passingSchemas ?? null]),
      );
      // go-openapi's string validator reports the first of maxLength, minLength and pattern only
      const stringErrors = new Map<string, string>();
      for (const keyword of STRING_KEYWORDS)
        for (const e of errors)
          if (e.keyword === keyword && !stringErrors.has(e.instancePath))
            stringErrors.set(e.instancePath, keyword);
      for (const e of errors) {
        const first = stringErrors.get(e.instancePath);
        if (first && STRING_KEYWORDS.has(e.keyword) && e.keyword !== first) continue;
        const alt = alternative(e.schemaPath);
        if (alt && (alt.index !== 0 || composed.get(`${alt.at}/${alt.keyword}`) !== null)) continue;
        const extra =
          e.keyword === 'required'
            ? String((e.params as { missingProperty: string }).missingProperty)
            : undefined;
        const at = renderPath(e.instancePath, schema, extra);
        // the status subresource checks `status` alone: names relative to it, its root at `status`
        const inStatus = subresource === 'status' && /^status(?:$|[.[])/.test(at);
        const root = inStatus ? 'status' : ROOT_PATH;
        const { message, blocking } = render(e, inStatus ? at.slice('status'.length).replace(/^\./, '') : at);
        // range and composition errors name the field in the message, at the root
        const atRoot =
          e.keyword === NUMERIC_RANGE ||
          e.keyword === 'anyOf' ||
          e.keyword === 'oneOf' ||
          e.keyword === 'not';
        const path = atRoot ? root : at || ROOT_PATH;
        const key = `${path}|${message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ path, message, source: 'schema', blocking });
      }
      return out;
    },
  };
}
