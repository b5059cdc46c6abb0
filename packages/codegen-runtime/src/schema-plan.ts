import { compileRe2 } from './cel/re2.ts';
import { escapeCelProperty } from './cel-values.ts';
import type { JsonSchemaProps } from './json-schema.ts';

/**
 * A schema node prepared once for the runtime passes (pruning, defaulting, embedded resources,
 * list types, CEL): own properties in a map, the facts each pass asks about, and whether anything
 * below the node concerns a pass, so that a pass skips the subtrees it has nothing to do in.
 */
export interface SchemaPlan {
  /** The schema node. */
  readonly schema: JsonSchemaProps;
  /** The declared properties (own keys of `properties` only). */
  readonly properties: ReadonlyMap<string, SchemaPlan>;
  /** The CEL name of each declared property (undefined: not accessible from CEL). */
  readonly celNames: ReadonlyMap<string, string | undefined>;
  /** The schema of map values (`additionalProperties` as a schema). */
  readonly values: SchemaPlan | undefined;
  /** `additionalProperties` is present and not `false`: undeclared fields are map entries, not pruned. */
  readonly additional: boolean;
  /** The schema of list items. */
  readonly items: SchemaPlan | undefined;
  /** `x-kubernetes-preserve-unknown-fields`. */
  readonly preserveUnknown: boolean;
  /** `x-kubernetes-embedded-resource`. */
  readonly embedded: boolean;
  /** `nullable: true`. */
  readonly nullable: boolean;
  /** The default value, undefined when there is none. */
  readonly defaultValue: unknown;
  /** The declared properties that have a default, in declaration order. */
  readonly defaulted: ReadonlyArray<readonly [string, SchemaPlan]>;
  /** `x-kubernetes-list-type`. */
  readonly listType: string | undefined;
  /** `x-kubernetes-list-map-keys`. */
  readonly listMapKeys: readonly string[] | undefined;
  /** Why the node's `pattern` is not checked client-side (no faithful translation), if so. */
  readonly uncheckedPattern: string | undefined;
  /** The node has `x-kubernetes-validations` rules. */
  readonly hasRules: boolean;
  /** The node or a node below is an embedded resource. */
  readonly embeddedBelow: boolean;
  /** The node or a node below is a `set` or `map` list. */
  readonly listsBelow: boolean;
  /** The node or a node below has CEL rules or an unchecked pattern. */
  readonly celBelow: boolean;
}

/** Why an RE2 `pattern` cannot be checked client-side, or undefined when it compiles. */
export function uncheckedPatternReason(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (e) {
    return `pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`;
  }
}

const plans = new WeakMap<JsonSchemaProps, SchemaPlan>();

/**
 * The plan of a schema node, built on first use and kept while the schema lives: a schema is
 * treated as immutable once it has been used.
 */
export function planOf(schema: JsonSchemaProps): SchemaPlan {
  let plan = plans.get(schema);
  if (!plan) {
    plan = buildPlan(schema);
    plans.set(schema, plan);
  }
  return plan;
}

function buildPlan(s: JsonSchemaProps): SchemaPlan {
  const properties = new Map<string, SchemaPlan>();
  const celNames = new Map<string, string | undefined>();
  const defaulted: Array<readonly [string, SchemaPlan]> = [];
  for (const [key, sub] of Object.entries(s.properties ?? {})) {
    const p = planOf(sub);
    properties.set(key, p);
    celNames.set(key, escapeCelProperty(key));
    if (p.defaultValue !== undefined) defaulted.push([key, p]);
  }
  const ap = s.additionalProperties;
  const values = ap && typeof ap === 'object' ? planOf(ap) : undefined;
  const items = s.items ? planOf(s.items) : undefined;
  const children = [...properties.values(), ...(values ? [values] : []), ...(items ? [items] : [])];
  const listType = s['x-kubernetes-list-type'];
  const uncheckedPattern = s.pattern === undefined ? undefined : uncheckedPatternReason(String(s.pattern));
  const hasRules = (s['x-kubernetes-validations']?.length ?? 0) > 0;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  return {
    schema: s,
    properties,
    celNames,
    values,
    additional: ap !== undefined && ap !== false,
    items,
    preserveUnknown: s['x-kubernetes-preserve-unknown-fields'] === true,
    embedded,
    nullable: s.nullable === true,
    defaultValue: s.default,
    defaulted,
    listType,
    listMapKeys: s['x-kubernetes-list-map-keys'],
    uncheckedPattern,
    hasRules,
    embeddedBelow: embedded || children.some((c) => c.embeddedBelow),
    listsBelow: listType === 'set' || listType === 'map' || children.some((c) => c.listsBelow),
    celBelow: hasRules || uncheckedPattern !== undefined || children.some((c) => c.celBelow),
  };
}
