/**
 * A CRD schema node in its JSON form (`openAPIV3Schema`, with the `x-kubernetes-*` keys), as
 * generated code embeds it and the runtime validator reads it.
 */
export interface JsonSchemaProps {
  /** The value type. */
  type?: string;
  /** Format, e.g. `date-time`. */
  format?: string;
  /** Accept `null`. */
  nullable?: boolean;
  /** Default value. */
  default?: unknown;
  /** Allowed values. */
  enum?: unknown[];
  /** Numeric lower bound. */
  minimum?: number;
  /** Numeric upper bound. */
  maximum?: number;
  /** The lower bound is exclusive. */
  exclusiveMinimum?: boolean;
  /** The upper bound is exclusive. */
  exclusiveMaximum?: boolean;
  /** Numbers must be a multiple of this. */
  multipleOf?: number;
  /** Minimum string length (characters). */
  minLength?: number;
  /** Maximum string length (characters). */
  maxLength?: number;
  /** An RE2 regular expression strings must match. */
  pattern?: string;
  /** Minimum list length. */
  minItems?: number;
  /** Maximum list length. */
  maxItems?: number;
  /** Minimum number of object keys. */
  minProperties?: number;
  /** Maximum number of object keys. */
  maxProperties?: number;
  /** Fields. */
  properties?: Record<string, JsonSchemaProps>;
  /** Required fields. */
  required?: string[];
  /** Map values. */
  additionalProperties?: JsonSchemaProps | boolean;
  /** List items. */
  items?: JsonSchemaProps;
  /** `x-kubernetes-preserve-unknown-fields`. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** `x-kubernetes-embedded-resource`. */
  'x-kubernetes-embedded-resource'?: boolean;
  /** `x-kubernetes-int-or-string`. */
  'x-kubernetes-int-or-string'?: boolean;
  /** `x-kubernetes-list-type`. */
  'x-kubernetes-list-type'?: string;
  /** `x-kubernetes-list-map-keys`. */
  'x-kubernetes-list-map-keys'?: string[];
  /** `x-kubernetes-validations`. */
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
    optionalOldSelf?: boolean;
  }>;
  /** Any other keyword (junctors, title, …). */
  [key: string]: unknown;
}
