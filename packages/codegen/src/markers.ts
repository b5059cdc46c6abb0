/**
 * The marker vocabulary of the TypeScript front end: JSDoc tags on exported interfaces, type
 * aliases and their fields. Unknown, misspelled and misplaced markers are errors with file:line.
 */

/** Where a marker may appear. */
export type MarkerTarget =
  /** The root interface of a resource (the one with `@group`/`@version`). */
  | 'resource'
  /** An interface or type alias (applies wherever the type is used), including a resource root. */
  | 'type'
  /** A field of an interface or object type. */
  | 'field'
  /** Any top-level declaration's doc comment (permissions). */
  | 'declaration';

/** The syntax of a marker's value. */
export type MarkerValue =
  /** No value: `@nullable`. */
  | 'flag'
  /** A number: `@maximum 10`. */
  | 'number'
  /** The rest of the line, or a JSON string: `@pattern ^[a-z]+$`. */
  | 'string'
  /** A JSON value: `@default {"a": 1}`. */
  | 'json'
  /** Positional words and `key=value` / `key="json string"` pairs. */
  | 'args';

/** The definition of one marker. */
export interface MarkerSpec {
  /** The tag name without `@`. */
  readonly name: string;
  /** Where it may appear. */
  readonly targets: readonly MarkerTarget[];
  /** Its value syntax. */
  readonly value: MarkerValue;
  /** May appear more than once. */
  readonly repeatable?: boolean;
  /** The schema types it applies to (misplaced otherwise). */
  readonly appliesTo?: readonly ('string' | 'integer' | 'number' | 'array' | 'object' | 'boolean')[];
  /** What it does. */
  readonly doc: string;
}

const S = ['type', 'field'] as const;
const NUM = ['integer', 'number'] as const;

/** The `min…` and `max…` markers of one size (`minItems` and `maxItems`, …). */
function sizeMarkers(
  size: 'Length' | 'Items' | 'Properties',
  type: 'string' | 'array' | 'object',
  what: string,
): MarkerSpec[] {
  return (['min', 'max'] as const).map((m) => ({
    name: `${m}${size}`,
    targets: S,
    value: 'number',
    appliesTo: [type],
    doc: `${m === 'min' ? 'minimum' : 'maximum'} ${what}`,
  }));
}

/** Every marker of the vocabulary. */
export const MARKERS: readonly MarkerSpec[] = [
  // resource (root interface)
  {
    name: 'group',
    targets: ['resource'],
    value: 'string',
    doc: 'API group (a DNS subdomain with a dot); marks the interface as a resource root',
  },
  {
    name: 'version',
    targets: ['resource'],
    value: 'string',
    doc: 'API version of this interface, e.g. v1alpha1',
  },
  { name: 'kind', targets: ['resource'], value: 'string', doc: 'kind; defaults to the interface name' },
  { name: 'scope', targets: ['resource'], value: 'string', doc: 'Namespaced (default) or Cluster' },
  {
    name: 'plural',
    targets: ['resource'],
    value: 'string',
    doc: 'plural resource name; defaults to the lower-case kind + s',
  },
  {
    name: 'singular',
    targets: ['resource'],
    value: 'string',
    doc: 'singular name; defaults to the lower-case kind',
  },
  { name: 'listKind', targets: ['resource'], value: 'string', doc: 'list kind; defaults to <kind>List' },
  {
    name: 'shortName',
    targets: ['resource'],
    value: 'string',
    repeatable: true,
    doc: 'a kubectl short name',
  },
  {
    name: 'category',
    targets: ['resource'],
    value: 'string',
    repeatable: true,
    doc: 'a kubectl category, e.g. all',
  },
  {
    name: 'storageVersion',
    targets: ['resource'],
    value: 'flag',
    doc: 'this version is the storage version (needed when there are several)',
  },
  { name: 'served', targets: ['resource'], value: 'string', doc: '`false` to stop serving the version' },
  {
    name: 'deprecatedVersion',
    targets: ['resource'],
    value: 'args',
    doc: 'the version is deprecated: `warning="…"`',
  },
  {
    name: 'subresource',
    targets: ['resource'],
    value: 'args',
    repeatable: true,
    doc: '`status`, `scale specPath=.spec.replicas statusPath=.status.replicas selectorPath=.status.selector`, or `none` (writes `subresources: {}`)',
  },
  {
    name: 'printColumn',
    targets: ['resource'],
    value: 'args',
    repeatable: true,
    doc: 'a printer column: `name=… type=… jsonPath=… description=… format=… priority=…`',
  },
  {
    name: 'selectableField',
    targets: ['resource'],
    value: 'args',
    repeatable: true,
    doc: 'a field selector field: `jsonPath=.spec.x`',
  },
  {
    name: 'conversion',
    targets: ['resource'],
    value: 'json',
    doc: 'the CRD `spec.conversion` as JSON, e.g. `{"strategy": "None"}`',
  },
  {
    name: 'crdAnnotation',
    targets: ['resource'],
    value: 'args',
    repeatable: true,
    doc: 'an annotation on the CRD: `key=value`',
  },
  {
    name: 'crdLabel',
    targets: ['resource'],
    value: 'args',
    repeatable: true,
    doc: 'a label on the CRD: `key=value`',
  },
  // permissions
  {
    name: 'rbac',
    targets: ['declaration', 'resource', 'type'],
    value: 'args',
    repeatable: true,
    doc: 'a ClusterRole rule: `groups=apps resources=deployments;deployments/status verbs=get;list;watch [resourceNames=a;b]`',
  },
  // schema: types and fields
  {
    name: 'integer',
    targets: S,
    value: 'flag',
    appliesTo: NUM,
    doc: '`number` is an integer (type: integer)',
  },
  { name: 'float', targets: S, value: 'flag', appliesTo: NUM, doc: '`number` is a float (type: number)' },
  {
    name: 'format',
    targets: S,
    value: 'string',
    doc: 'format; int32/int64 make a `number` an integer, float/double a float; date-time, byte, ipv4, … on strings',
  },
  { name: 'title', targets: S, value: 'string', doc: 'title' },
  {
    name: 'enum',
    targets: S,
    value: 'json',
    doc: 'allowed values as a JSON array (string literal unions do this for you)',
  },
  { name: 'minimum', targets: S, value: 'number', appliesTo: NUM, doc: 'lower bound' },
  { name: 'maximum', targets: S, value: 'number', appliesTo: NUM, doc: 'upper bound' },
  {
    name: 'exclusiveMinimum',
    targets: S,
    value: 'string',
    appliesTo: NUM,
    doc: 'bare: @minimum is exclusive; with a number n: > n',
  },
  {
    name: 'exclusiveMaximum',
    targets: S,
    value: 'string',
    appliesTo: NUM,
    doc: 'bare: @maximum is exclusive; with a number n: < n',
  },
  {
    name: 'multipleOf',
    targets: S,
    value: 'number',
    appliesTo: NUM,
    doc: 'numbers must be a multiple of this',
  },
  ...sizeMarkers('Length', 'string', 'string length'),
  {
    name: 'pattern',
    targets: S,
    value: 'string',
    appliesTo: ['string'],
    doc: 'an RE2 regular expression (rest of the line, or a JSON string)',
  },
  ...sizeMarkers('Items', 'array', 'list length'),
  ...sizeMarkers('Properties', 'object', 'number of keys'),
  { name: 'default', targets: S, value: 'json', doc: 'default value (JSON)' },
  { name: 'example', targets: S, value: 'json', doc: 'example value (JSON)' },
  { name: 'nullable', targets: S, value: 'flag', doc: 'null is accepted (same as `| null`)' },
  { name: 'optional', targets: ['field'], value: 'flag', doc: 'the field is optional even without `?`' },
  { name: 'required', targets: ['field'], value: 'flag', doc: 'the field is required even with `?`' },
  {
    name: 'listType',
    targets: S,
    value: 'string',
    appliesTo: ['array'],
    doc: 'atomic, set or map (x-kubernetes-list-type)',
  },
  {
    name: 'listMapKey',
    targets: S,
    value: 'string',
    repeatable: true,
    appliesTo: ['array'],
    doc: 'a key field of a list of type map',
  },
  {
    name: 'mapType',
    targets: S,
    value: 'string',
    appliesTo: ['object'],
    doc: 'atomic or granular (x-kubernetes-map-type)',
  },
  {
    name: 'preserveUnknownFields',
    targets: S,
    value: 'flag',
    doc: 'x-kubernetes-preserve-unknown-fields: true (needed for `unknown`)',
  },
  {
    name: 'embeddedResource',
    targets: S,
    value: 'flag',
    appliesTo: ['object'],
    doc: 'x-kubernetes-embedded-resource: true',
  },
  {
    name: 'intOrString',
    targets: S,
    value: 'flag',
    doc: 'x-kubernetes-int-or-string: true (for `number | string`)',
  },
  {
    name: 'object',
    targets: S,
    value: 'flag',
    doc: 'an opaque object: `type: object` with no fields (for `Record<string, unknown>`)',
  },
  { name: 'immutable', targets: S, value: 'flag', doc: 'CEL sugar: `self == oldSelf`' },
  {
    name: 'validation',
    targets: S,
    value: 'args',
    repeatable: true,
    doc: 'a CEL rule: `rule="…" message="…" messageExpression="…" reason=FieldValueInvalid fieldPath=".x" optionalOldSelf=true`',
  },
  {
    name: 'exactlyOneOf',
    targets: S,
    value: 'string',
    repeatable: true,
    appliesTo: ['object'],
    doc: 'CEL sugar: exactly one of the comma-separated fields is set',
  },
  {
    name: 'atMostOneOf',
    targets: S,
    value: 'string',
    repeatable: true,
    appliesTo: ['object'],
    doc: 'CEL sugar: at most one of the fields is set',
  },
  {
    name: 'atLeastOneOf',
    targets: S,
    value: 'string',
    repeatable: true,
    appliesTo: ['object'],
    doc: 'CEL sugar: at least one of the fields is set',
  },
  {
    name: 'anyOf',
    targets: S,
    value: 'json',
    doc: 'value validations (JSON array of CRD schemas) of which one must hold',
  },
  { name: 'oneOf', targets: S, value: 'json', doc: 'value validations of which exactly one must hold' },
  { name: 'allOf', targets: S, value: 'json', doc: 'value validations that must all hold' },
  { name: 'not', targets: S, value: 'json', doc: 'a value validation that must not hold' },
  { name: 'externalDocs', targets: S, value: 'args', doc: '`url=… description=…`' },
];
