/**
 * The OpenAPI value keywords of a schema node, spelled the same in a CRD's JSON form
 * ({@link JsonSchemaProps}) and in the codegen model (`SchemaNode`).
 */
export interface SchemaKeywords {
  /** A format (`int32`, `int64`, `date-time`, `byte`, `ipv4`, …). */
  format?: string;
  /** `null` is an accepted value. */
  nullable?: boolean;
  /** The default value the apiserver fills in. */
  default?: unknown;
  /** The allowed values. */
  enum?: unknown[];
  /** Numeric lower bound. */
  minimum?: number;
  /** Numeric upper bound. */
  maximum?: number;
  /** The lower bound is exclusive (OpenAPI 3.0 boolean form). */
  exclusiveMinimum?: boolean;
  /** The upper bound is exclusive (OpenAPI 3.0 boolean form). */
  exclusiveMaximum?: boolean;
  /** Numbers must be a multiple of this. */
  multipleOf?: number;
  /** Minimum string length (in characters). */
  minLength?: number;
  /** Maximum string length. */
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
  /** Names of required fields. */
  required?: string[];
}

/**
 * A CRD schema node in its JSON form (`openAPIV3Schema`, with the `x-kubernetes-*` keys), as
 * generated code embeds it and the runtime validator reads it.
 */
export interface JsonSchemaProps extends SchemaKeywords {
  /** The value type. */
  type?: string;
  /** Fields. */
  properties?: Record<string, JsonSchemaProps>;
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
