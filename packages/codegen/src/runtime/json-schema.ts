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
  /** Any other keyword (bounds, pattern, junctors, …). */
  [key: string]: unknown;
}
