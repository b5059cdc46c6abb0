import type { SchemaNode } from '../ir.ts';

const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const stringMap = (): SchemaNode => ({ type: 'object', additionalProperties: { type: 'string' } });

const OBJECT_META: SchemaNode = {
  type: 'object',
  properties: {
    annotations: stringMap(),
    finalizers: { type: 'array', items: { type: 'string' } },
    labels: stringMap(),
    name: { type: 'string' },
    namespace: { type: 'string' },
  },
};

const CONDITION: SchemaNode = {
  type: 'object',
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  properties: {
    lastTransitionTime: { type: 'string', format: 'date-time' },
    message: { type: 'string', maxLength: 32768 },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    reason: {
      type: 'string',
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    type: {
      type: 'string',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
  },
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
};

const LABEL_SELECTOR: SchemaNode = {
  type: 'object',
  properties: {
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          key: { type: 'string' },
          operator: { type: 'string' },
          values: { type: 'array', items: { type: 'string' }, listType: 'atomic' },
        },
        required: ['key', 'operator'],
      },
      listType: 'atomic',
    },
    matchLabels: stringMap(),
  },
  mapType: 'atomic',
};

/**
 * The schema of a well-known Kubernetes type referenced by name (client-node's `V1ObjectMeta`,
 * `V1Condition`, `V1LabelSelector`, and `Date`, `IntOrString`, `Quantity`, `Time`), or undefined.
 * Types declared in the input files themselves are never replaced (except `Date`).
 */
export function knownType(
  name: string,
  declaredInInputs: boolean,
  declared: boolean,
): SchemaNode | undefined {
  if (name === 'Date' && !declaredInInputs) return { type: 'string', format: 'date-time' };
  if (name === 'IntOrString') return { intOrString: true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  if (name === 'Quantity') {
    return { intOrString: true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN };
  }
  if (declaredInInputs || !declared) return undefined;
  switch (name) {
    case 'Time':
    case 'MicroTime':
      return { type: 'string', format: 'date-time' };
    case 'ObjectMeta':
    case 'V1ObjectMeta':
      return structuredClone(OBJECT_META);
    case 'Condition':
    case 'V1Condition':
      return structuredClone(CONDITION);
    case 'LabelSelector':
    case 'V1LabelSelector':
      return structuredClone(LABEL_SELECTOR);
    default:
      return undefined;
  }
}
