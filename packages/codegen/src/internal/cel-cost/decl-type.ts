// The CEL view of a structural schema the apiserver builds before compiling rules
// (`SchemaDeclType` in k8s.io/apiserver/pkg/cel/common): value kinds, fields under their escaped
// CEL names, and for each node the most elements (characters, items, properties) a request can
// hold and the fewest bytes the node takes when serialized.
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';

/** The largest request the apiserver accepts (3 MiB), which bounds every unbounded list, map and string. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** A schema node as CEL sees it (the apiserver's `DeclType`). */
export interface DeclType {
  readonly kind:
    | 'object'
    | 'list'
    | 'map'
    | 'string'
    | 'bytes'
    | 'int'
    | 'double'
    | 'bool'
    | 'duration'
    | 'timestamp'
    | 'dyn';
  /** Object fields by escaped name. */
  readonly fields?: ReadonlyMap<string, DeclType>;
  /** List items or map values. */
  readonly elem?: DeclType;
  /** The most elements: characters of a string, items of a list, entries of a map (0 for objects and numbers). */
  readonly maxElements: number;
  /** The fewest bytes the value takes in JSON. */
  readonly minSerializedSize: number;
}

/** The words the apiserver escapes as `__word__` (`celReservedSymbols`). */
const RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

/**
 * A property name as a CEL field name (`Escape` in k8s.io/apiserver/pkg/cel): reserved words
 * become `__name__`, `__` `.` `-` `/` are spelled out, and a name with any other character is not
 * visible to CEL (undefined).
 */
function escapeFieldName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (m) =>
    m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__',
  );
}

const simple = (kind: DeclType['kind'], minSerializedSize: number, maxElements = 0): DeclType => ({
  kind,
  maxElements,
  minSerializedSize,
});

function maxLengthElements(s: JsonSchemaProps): number {
  // maxLength counts code points; a code point is up to 4 bytes
  return Math.max(0, s.maxLength ?? 0) * 4;
}

/** The most characters of a string the schema allows in one request (`estimateMaxStringLengthPerRequest`). */
function maxStringLengthPerRequest(s: JsonSchemaProps): number {
  if (s['x-kubernetes-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case 'duration':
      return 32;
    case 'date':
      return 12;
    case 'date-time':
      return 32;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

function withTypeAndObjectMeta(s: JsonSchemaProps): JsonSchemaProps {
  const p = s.properties;
  const isString = (x: JsonSchemaProps | undefined) => x?.type === 'string';
  if (
    p &&
    isString(p.kind) &&
    isString(p.apiVersion) &&
    p.metadata?.type === 'object' &&
    isString(p.metadata.properties?.name) &&
    isString(p.metadata.properties?.generateName)
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...p,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: {
        type: 'object',
        properties: { name: { type: 'string' }, generateName: { type: 'string' } },
      },
    },
  };
}

/**
 * The CEL type of a structural schema node, or undefined where CEL cannot see the node (no type,
 * or a list or map of such). `isResourceRoot` adds `apiVersion`, `kind` and `metadata.name` /
 * `metadata.generateName`, as the apiserver does at a resource's root and embedded resources.
 */
export function schemaDeclType(schema: JsonSchemaProps, isResourceRoot: boolean): DeclType | undefined {
  if (schema['x-kubernetes-int-or-string']) {
    return simple(
      'dyn',
      1,
      schema.maxLength !== undefined ? maxLengthElements(schema) : maxStringLengthPerRequest(schema),
    );
  }
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = schemaDeclType(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!items) return undefined;
      const maxItems =
        s.maxItems !== undefined
          ? Math.max(0, s.maxItems)
          : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (items.minSerializedSize + 1));
      return { kind: 'list', elem: items, maxElements: maxItems, minSerializedSize: 2 };
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === 'object') {
        const values = schemaDeclType(ap, ap['x-kubernetes-embedded-resource'] === true);
        if (!values) return undefined;
        const maxProperties =
          s.maxProperties !== undefined
            ? Math.max(0, s.maxProperties)
            : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (values.minSerializedSize + 6));
        return { kind: 'map', elem: values, maxElements: maxProperties, minSerializedSize: 2 };
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, DeclType>();
      let minSerializedSize = 2; // {}
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (!t) continue;
        const escaped = escapeFieldName(name);
        if (escaped !== undefined) fields.set(escaped, t);
        // a required field without a default is always serialized: "name": value,
        if (required.has(name) && prop.default === undefined) {
          minSerializedSize += new TextEncoder().encode(name).length + t.minSerializedSize + 4;
        }
      }
      return { kind: 'object', fields, maxElements: 0, minSerializedSize };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return simple(
            'bytes',
            2,
            s.maxLength !== undefined ? Math.max(0, s.maxLength) : maxStringLengthPerRequest(s),
          );
        case 'duration':
          return simple('duration', 3, maxStringLengthPerRequest(s));
        case 'date':
          return simple('timestamp', 12, maxStringLengthPerRequest(s));
        case 'date-time':
          return simple('timestamp', 21, maxStringLengthPerRequest(s));
        default:
          break;
      }
      if (s.maxLength !== undefined) return simple('string', 2, maxLengthElements(s));
      if (s.enum?.length) {
        const longest = Math.max(
          0,
          ...s.enum.map((v) => (typeof v === 'string' ? new TextEncoder().encode(v).length : 0)),
        );
        return simple('string', 2, longest);
      }
      return simple('string', 2, maxStringLengthPerRequest(s));
    case 'boolean':
      return simple('bool', 4);
    case 'number':
      return simple('double', 1);
    case 'integer':
      return simple('int', 1);
    default:
      return undefined;
  }
}
