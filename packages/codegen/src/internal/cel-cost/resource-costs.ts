// The cost limits of kube-apiserver applied to a resource of the codegen model: the CRD it
// stands for would be rejected at creation when one of these issues is reported.
import type { CodegenIssue } from '../../codegen-error.ts';
import { schemaToJson } from '../../crd-writer.ts';
import type { CelRule, ResourceModel, SchemaNode, SourceLocation } from '../../ir.ts';
import { checkRuleCosts, type SchemaStep } from './crd-cost.ts';

function nodeAt(root: SchemaNode, steps: readonly SchemaStep[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const s of steps) {
    if (!node) return undefined;
    if ('properties' in s) node = node.properties?.[s.properties];
    else if ('items' in s) node = node.items;
    else node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  }
  return node;
}

/**
 * The rules of a resource's schemas whose estimated cost kube-apiserver would reject, in its
 * words (`estimated rule cost exceeds budget by factor of …`, and the CRD-wide total), each at
 * the location `locate` gives for the rule (its marker in TypeScript), else at the schema node's.
 */
export function ruleCostIssues(
  r: ResourceModel,
  locate: (rule: CelRule) => SourceLocation | undefined = () => undefined,
): CodegenIssue[] {
  const schemas = r.versions.map((v) => schemaToJson(v.schema));
  // the apiserver validates one spec.validation when every version has the same schema
  const shared = schemas.every((s) => JSON.stringify(s) === JSON.stringify(schemas[0]));
  const crd = `${r.plural}.${r.group}`;
  const issues: CodegenIssue[] = [];
  for (const [i, v] of r.versions.entries()) {
    if (shared && i > 0) break;
    const base = shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`;
    for (const issue of checkRuleCosts(schemas[i]!, { base })) {
      const node = nodeAt(v.schema, issue.steps);
      const rule = issue.rule === undefined ? undefined : node?.validations?.[issue.rule];
      issues.push({
        message: `kube-apiserver would reject CustomResourceDefinition ${crd}: ${issue.field}: Forbidden: ${issue.message}`,
        location: (rule && locate(rule)) ?? node?.location ?? r.location,
      });
    }
  }
  return issues;
}
