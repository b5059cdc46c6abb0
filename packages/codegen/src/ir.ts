/**
 * The one intermediate model of `@kubeloom/codegen`. Every front end (TypeScript source, CRD
 * YAML) produces it and every back end (CRD YAML, TypeScript types, descriptors, validators,
 * RBAC) consumes it.
 *
 * The schema model is Kubernetes-aware: it is the structural OpenAPI v3 subset that a
 * `CustomResourceDefinition` accepts, with the `x-kubernetes-*` extensions as first-class
 * camel-case fields and a source location on every node, so later passes can point at the line
 * a problem comes from.
 */

import type { SchemaKeywords } from '@kubeloom/codegen-runtime';

/** A position in an input file (1-based line and column). */
export interface SourceLocation {
  /** The file, as given to the front end. */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, when known. */
  readonly column?: number;
}

/** The value types a structural schema allows. */
export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

/** The `reason` values a CEL validation rule may carry. */
export type CelReason =
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate';

/** One `x-kubernetes-validations` entry. */
export interface CelRule {
  /** The CEL expression; `self` is the value of the node, `oldSelf` the previous value. */
  readonly rule: string;
  /** A fixed message shown when the rule fails. */
  readonly message?: string;
  /** A CEL expression that builds the message. */
  readonly messageExpression?: string;
  /** The reason reported by the apiserver. */
  readonly reason?: CelReason;
  /** A relative JSON path the error is attributed to, e.g. `.spec.replicas`. */
  readonly fieldPath?: string;
  /** Evaluate the transition rule on create too (with `oldSelf` an empty optional). */
  readonly optionalOldSelf?: boolean;
}

/** `externalDocs` of a schema node. */
export interface ExternalDocs {
  /** Link text. */
  readonly description?: string;
  /** The link. */
  readonly url?: string;
}

/**
 * One node of a structural schema. Field names follow OpenAPI v3 (`JSONSchemaProps`); the
 * Kubernetes extensions are camel-cased (`x-kubernetes-list-type` is {@link SchemaNode.listType}).
 */
export interface SchemaNode extends SchemaKeywords {
  /** The value type; absent only with `intOrString` or `preserveUnknownFields`, or inside junctors. */
  type?: SchemaType;
  /** Human-readable documentation. */
  description?: string;
  /** A title. */
  title?: string;
  /** An example value. */
  example?: unknown;
  /** Kept only to report it: the apiserver forbids `uniqueItems: true`. */
  uniqueItems?: boolean;
  /** Named fields of an object. */
  properties?: Record<string, SchemaNode>;
  /** The schema of map values (`Record<string, T>`), or `true`/`false`. */
  additionalProperties?: SchemaNode | boolean;
  /** The schema of list items. */
  items?: SchemaNode;
  /** Value validations of which at least one must hold. */
  anyOf?: SchemaNode[];
  /** Value validations of which exactly one must hold. */
  oneOf?: SchemaNode[];
  /** Value validations that must all hold. */
  allOf?: SchemaNode[];
  /** A value validation that must not hold. */
  not?: SchemaNode;
  /** `x-kubernetes-int-or-string: true`. */
  intOrString?: boolean;
  /** `x-kubernetes-preserve-unknown-fields: true`. */
  preserveUnknownFields?: boolean;
  /** `x-kubernetes-embedded-resource: true`. */
  embeddedResource?: boolean;
  /** `x-kubernetes-list-type`. */
  listType?: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys`. */
  listMapKeys?: string[];
  /** `x-kubernetes-map-type`. */
  mapType?: 'atomic' | 'granular';
  /** `x-kubernetes-validations`. */
  validations?: CelRule[];
  /** `externalDocs`. */
  externalDocs?: ExternalDocs;
  /** Where the node was declared (not emitted). */
  location?: SourceLocation;
}

/** `additionalPrinterColumns` entry. */
export interface PrinterColumn {
  /** Column header. */
  readonly name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  readonly type: string;
  /** A simple JSONPath, e.g. `.spec.replicas`. */
  readonly jsonPath: string;
  /** Column help. */
  readonly description?: string;
  /** A format hint. */
  readonly format?: string;
  /** 0 shows in the default view, higher only in wide output. */
  readonly priority?: number;
}

/** The scale subresource paths. */
export interface ScaleSubresource {
  /** JSONPath of the desired replicas, under `.spec`. */
  readonly specReplicasPath: string;
  /** JSONPath of the observed replicas, under `.status`. */
  readonly statusReplicasPath: string;
  /** JSONPath of the serialized label selector, under `.spec` or `.status`. */
  readonly labelSelectorPath?: string;
}

/** One version of a resource. */
export interface VersionModel {
  /** The version name, e.g. `v1alpha1`. */
  name: string;
  /** Served by the apiserver. */
  served: boolean;
  /** The storage version (exactly one per CRD). */
  storage: boolean;
  /** The version is deprecated. */
  deprecated?: boolean;
  /** The warning returned to clients of a deprecated version. */
  deprecationWarning?: string;
  /** The object schema (root: `type: object`). */
  schema: SchemaNode;
  /** The status subresource is enabled. */
  statusSubresource?: boolean;
  /** The scale subresource, when enabled. */
  scale?: ScaleSubresource;
  /**
   * The CRD writes `subresources: {}` although no subresource is enabled (kept so a CRD
   * round-trips exactly; `@subresource none` in TypeScript).
   */
  explicitSubresources?: boolean;
  /** Extra `kubectl get` columns. */
  printerColumns?: PrinterColumn[];
  /** Fields usable in field selectors (JSONPaths). */
  selectableFields?: string[];
  /** Where the version was declared. */
  location?: SourceLocation;
}

/** A custom resource: one CRD. */
export interface ResourceModel {
  /** The API group, e.g. `gateway.networking.k8s.io`. */
  group: string;
  /** The kind, e.g. `HTTPRoute`. */
  kind: string;
  /** Plural resource name (lower-case). */
  plural: string;
  /** Singular name (lower-case). */
  singular: string;
  /** The list kind, `<kind>List` by default. */
  listKind: string;
  /** Short names for kubectl. */
  shortNames?: string[];
  /** Categories, e.g. `all`. */
  categories?: string[];
  /** `Namespaced` or `Cluster`. */
  scope: 'Namespaced' | 'Cluster';
  /** The versions, in declaration order. */
  versions: VersionModel[];
  /** CRD metadata annotations. */
  annotations?: Record<string, string>;
  /** CRD metadata labels. */
  labels?: Record<string, string>;
  /** `spec.conversion`, as written (e.g. `{strategy: None}` or a webhook configuration). */
  conversion?: Record<string, unknown>;
  /** Where the resource was declared. */
  location?: SourceLocation;
}

/** One RBAC policy rule (ClusterRole `rules[]`). */
export interface PolicyRuleModel {
  /** API groups (`''` for the core group). */
  apiGroups: string[];
  /** Resources, e.g. `pods`, `deployments/status`. */
  resources: string[];
  /** Verbs, e.g. `get`, `list`, `watch`. */
  verbs: string[];
  /** Restrict to these object names. */
  resourceNames?: string[];
  /** Where the permission was declared. */
  location?: SourceLocation;
}

/** Everything one run of a front end found. */
export interface ApiModel {
  /** The custom resources, in a deterministic order. */
  resources: ResourceModel[];
  /** Declared permissions (RBAC). */
  permissions: PolicyRuleModel[];
}
