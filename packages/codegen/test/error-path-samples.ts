// A schema with every shape whose error paths the apiserver writes in its own way — map entries
// (additionalProperties) under OpenAPI, CEL, list-type and embedded-resource checks, list items by
// index, list-map entries — and CEL failures on scalars, lists and objects with each reason, and
// invalid objects for each. Shared by the validator's unit test and
// the comparison with kube-apiserver (`error-paths.integration.test.ts`).
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';

/** The `spec` schema of the probe resource. */
const ERROR_PATH_SPEC: JsonSchemaProps = {
  type: 'object',
  properties: {
    resources: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['value'],
        properties: { value: { type: 'integer', maximum: 10 } },
        'x-kubernetes-validations': [{ rule: 'self.value != 7', message: 'not 7' }],
      },
    },
    byIndex: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'integer', maximum: 1 } },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } },
      },
    },
    tags: {
      type: 'object',
      additionalProperties: {
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'string' },
      },
    },
    nested: {
      type: 'object',
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: { type: 'string', maxLength: 3 },
        },
      },
    },
    level: {
      type: 'integer',
      'x-kubernetes-validations': [{ rule: 'self < 5', message: 'must be below 5' }],
    },
    mode: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: "self != 'forbidden'", message: 'is forbidden', reason: 'FieldValueForbidden' },
        { rule: "self != 'again'", message: 'is there already', reason: 'FieldValueDuplicate' },
        { rule: "self != 'missing'", message: 'needs a value', reason: 'FieldValueRequired' },
      ],
    },
    list: {
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-validations': [
        { rule: 'size(self) < 2', message: 'at most one item' },
        { rule: "!self.exists(x, x == 'dup')", message: 'no dup', reason: 'FieldValueDuplicate' },
      ],
    },
    embedded: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    },
  },
};

/** The whole schema of the probe resource. */
export const ERROR_PATH_SCHEMA: JsonSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: ERROR_PATH_SPEC,
  },
};

/** One invalid `spec` and what it probes. */
export interface ErrorPathSample {
  /** What the sample probes. */
  readonly label: string;
  /** The invalid spec. */
  readonly spec: Record<string, unknown>;
}

/** Invalid specs, one shape each. */
export const ERROR_PATH_SAMPLES: readonly ErrorPathSample[] = [
  { label: 'map entry, schema error', spec: { resources: { cpu: { value: 11 } } } },
  { label: 'map entry, required field', spec: { resources: { memory: {} } } },
  { label: 'map key with a dot', spec: { resources: { 'foo.bar': { value: 11 } } } },
  { label: 'map key with brackets', spec: { resources: { 'a[0]': { value: 12 } } } },
  { label: 'map key with a slash and a space', spec: { resources: { 'x/y z': { value: 13 } } } },
  { label: 'map key that looks like an index', spec: { byIndex: { '0': [0, 2] } } },
  { label: 'map entry, CEL rule', spec: { resources: { cpu: { value: 7 } } } },
  { label: 'map key with a dot, CEL rule', spec: { resources: { 'foo.bar': { value: 7 } } } },
  { label: 'set list in a map entry', spec: { tags: { 'x.y': ['a', 'a'] } } },
  { label: 'list items by index', spec: { ports: [{ name: 'a' }, { name: 'b', port: 101 }] } },
  {
    label: 'list-map duplicate key',
    spec: {
      ports: [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
        { name: 'a', port: 3 },
      ],
    },
  },
  { label: 'list-map entry without its key', spec: { ports: [{ name: 'a' }, { port: 1 }] } },
  { label: 'map, list, map', spec: { nested: { 'k.1': [{ ok: 'abc' }, { 'long.key': 'abcd' }] } } },
  { label: 'CEL rule on an integer', spec: { level: 7 } },
  { label: 'CEL rule on a string, reason FieldValueForbidden', spec: { mode: 'forbidden' } },
  { label: 'CEL rule on a string, reason FieldValueDuplicate', spec: { mode: 'again' } },
  { label: 'CEL rule on a string, reason FieldValueRequired', spec: { mode: 'missing' } },
  { label: 'CEL rule on a list', spec: { list: ['a', 'b'] } },
  { label: 'CEL rule on a list, reason FieldValueDuplicate', spec: { list: ['dup'] } },
  { label: 'embedded resource in a map entry', spec: { embedded: { 'e.1': { kind: 'Thing' } } } },
  {
    label: 'embedded resource in a map entry, bad metadata',
    spec: { embedded: { e: { apiVersion: 'v1', kind: 'Thing', metadata: { labels: { 'bad key': 'x' } } } } },
  },
];
