// The apiserver's cost limits on a CRD's CEL rules, checked at CRD create/update
// (apiextensions-apiserver/pkg/apis/apiextensions/validation): each rule's estimated cost times
// the most times its schema node can occur must stay within StaticEstimatedCostLimit, each
// messageExpression's cost too, and the sum over the whole schema within
// StaticEstimatedCRDCostLimit.
import { type JsonSchemaProps, parseCel } from '@kubeloom/codegen-runtime';
import { estimateCost } from './coster.ts';
import { type DeclType, MAX_REQUEST_SIZE_BYTES, schemaDeclType } from './decl-type.ts';
import { MAX } from './estimate.ts';

/** The largest estimated cost one rule may have (`StaticEstimatedCostLimit`). */
const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The largest estimated cost all rules of a schema may have together (`StaticEstimatedCRDCostLimit`). */
const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** One way down a schema: a property, the list items or the map values. */
export type SchemaStep =
  | { readonly properties: string }
  | { readonly items: true }
  | { readonly additionalProperties: true };

/** A rule (or the schema as a whole) the apiserver would reject for its estimated cost. */
export interface CostIssue {
  /** The apiserver's field path, e.g. `<base>.properties[spec].x-kubernetes-validations[0].rule`. */
  readonly field: string;
  /** The apiserver's message (without the `Forbidden: ` prefix). */
  readonly message: string;
  /** The steps from the root to the schema node, for mapping back to a source. */
  readonly steps: readonly SchemaStep[];
  /** The rule's index, for a rule or messageExpression issue (undefined for the schema total). */
  readonly rule?: number | undefined;
}

/** Go's `%.<digits>f` of a float64: like `toFixed`, but exact ties round to even. */
function goFixed(x: number, digits: number): string {
  const scaled = x * 10 ** digits;
  const floor = Math.floor(scaled);
  if (scaled - floor !== 0.5) return x.toFixed(digits);
  const even = floor % 2 === 0 ? floor : floor + 1;
  const s = String(even).padStart(digits + 1, '0');
  return `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}

/** The apiserver's wording (`getCostErrorMessage`). */
function costErrorMessage(costName: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${goFixed(f, 6)}x` : `${goFixed(f, 1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

function times(cost: number, cardinality: number): number {
  if (cost === 0) return 0;
  return Math.min(cost * cardinality, MAX);
}

/** How many more times a node's children can occur than the node (`extractMaxElements`); undefined: unbounded. */
function maxElements(s: JsonSchemaProps): number | undefined {
  if (s.type === 'object') {
    if (s.additionalProperties !== undefined)
      return s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : undefined;
    return 1;
  }
  if (s.type === 'array') return s.maxItems !== undefined ? Math.max(0, s.maxItems) : undefined;
  return 1;
}

function ruleCost(expression: string, decl: DeclType, optionalOldSelf: boolean): number | undefined {
  if (expression.trim() === '') return undefined;
  try {
    return estimateCost(parseCel(expression), { root: decl, optionalOldSelf }).max;
  } catch {
    return undefined; // a rule that does not compile is reported as such, with no cost
  }
}

/**
 * The cost issues the apiserver would report for a CRD version's `openAPIV3Schema`, with field
 * paths under `base` (`spec.validation.openAPIV3Schema` when every version has the same schema,
 * else `spec.versions[i].schema.openAPIV3Schema`).
 */
export function checkRuleCosts(schema: JsonSchemaProps, options: { readonly base: string }): CostIssue[] {
  const issues: CostIssue[] = [];
  let total = 0;
  const expensive: Array<{ field: string; cost: number; steps: readonly SchemaStep[]; rule: number }> = [];
  const observe = (entry: { field: string; cost: number; steps: readonly SchemaStep[]; rule: number }) => {
    total = Math.min(MAX, total + entry.cost);
    if (entry.cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    expensive.push(entry);
    expensive.sort((a, b) => b.cost - a.cost);
    if (expensive.length > 4) expensive.length = 4;
  };
  const visit = (
    s: JsonSchemaProps,
    at: { field: string; steps: readonly SchemaStep[]; cardinality: number | undefined; root: boolean },
  ) => {
    const rules = s['x-kubernetes-validations'] ?? [];
    const decl =
      rules.length > 0
        ? schemaDeclType(s, at.root || s['x-kubernetes-embedded-resource'] === true)
        : undefined;
    if (decl) {
      const unbounded = Math.floor(MAX_REQUEST_SIZE_BYTES / (decl.minSerializedSize + 1));
      for (const [i, r] of rules.entries()) {
        const field = `${at.field}.x-kubernetes-validations[${i}]`;
        const maxCost = ruleCost(r.rule, decl, r.optionalOldSelf === true);
        if (maxCost === undefined) continue;
        const cost = times(maxCost, at.cardinality ?? unbounded);
        if (cost > STATIC_ESTIMATED_COST_LIMIT) {
          issues.push({
            field: `${field}.rule`,
            message: costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT),
            steps: at.steps,
            rule: i,
          });
        }
        observe({ field: `${field}.rule`, cost, steps: at.steps, rule: i });
        const msgCost = r.messageExpression
          ? ruleCost(r.messageExpression, decl, r.optionalOldSelf === true)
          : undefined;
        if (msgCost === undefined) continue;
        if (msgCost > STATIC_ESTIMATED_COST_LIMIT) {
          issues.push({
            field: `${field}.messageExpression`,
            message: costErrorMessage(
              'estimated messageExpression cost',
              msgCost,
              STATIC_ESTIMATED_COST_LIMIT,
            ),
            steps: at.steps,
            rule: i,
          });
        }
        observe({ field: `${field}.messageExpression`, cost: msgCost, steps: at.steps, rule: i });
      }
    }
    const factor = maxElements(s);
    const childCardinality =
      at.cardinality === undefined || factor === undefined
        ? undefined
        : Math.min(MAX, at.cardinality * factor);
    const child = (sub: JsonSchemaProps, field: string, step: SchemaStep) =>
      visit(sub, {
        field: `${at.field}.${field}`,
        steps: [...at.steps, step],
        cardinality: childCardinality,
        root: false,
      });
    for (const [name, sub] of Object.entries(s.properties ?? {}))
      child(sub, `properties[${name}]`, { properties: name });
    if (s.items && typeof s.items === 'object') child(s.items, 'items', { items: true });
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      child(s.additionalProperties, 'additionalProperties', { additionalProperties: true });
    }
  };
  visit(schema, { field: options.base, steps: [], cardinality: 1, root: true });
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of expensive) {
      issues.push({
        field: e.field,
        message: 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
        steps: e.steps,
        rule: e.rule,
      });
    }
    issues.push({
      field: options.base,
      message: costErrorMessage(
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
        total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      ),
      steps: [],
    });
  }
  return issues;
}
