import { stringify } from 'yaml';
import type { PolicyRuleModel } from './ir.ts';

/** A ClusterRole as plain JSON. */
export interface ClusterRoleDocument {
  /** Always `rbac.authorization.k8s.io/v1`. */
  apiVersion: 'rbac.authorization.k8s.io/v1';
  /** Always `ClusterRole`. */
  kind: 'ClusterRole';
  /** `name` of the role. */
  metadata: { name: string };
  /** The merged rules. */
  rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>;
}

/**
 * Merges permission markers into ClusterRole rules, as controller-gen's rbac generator does:
 * rules with the same groups, resources and resource names are joined and their verbs united;
 * everything is sorted, so the output is deterministic.
 */
export function permissionsToClusterRole(
  permissions: readonly PolicyRuleModel[],
  name = 'manager-role',
): ClusterRoleDocument {
  const merged = new Map<
    string,
    { apiGroups: string[]; resources: string[]; verbs: Set<string>; resourceNames?: string[] }
  >();
  for (const p of permissions) {
    for (const group of p.apiGroups) {
      for (const resource of p.resources) {
        const key = JSON.stringify([group, resource, [...(p.resourceNames ?? [])].sort()]);
        const prev = merged.get(key);
        if (prev) for (const v of p.verbs) prev.verbs.add(v);
        else {
          merged.set(key, {
            apiGroups: [group],
            resources: [resource],
            verbs: new Set(p.verbs),
            ...(p.resourceNames ? { resourceNames: [...p.resourceNames].sort() } : {}),
          });
        }
      }
    }
  }
  // join resources of one group that share verbs and names
  const joined = new Map<
    string,
    { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }
  >();
  for (const r of merged.values()) {
    const verbs = r.verbs.has('*') ? ['*'] : [...r.verbs].sort();
    const key = JSON.stringify([r.apiGroups, verbs, r.resourceNames ?? null]);
    const prev = joined.get(key);
    if (prev) prev.resources = [...new Set([...prev.resources, ...r.resources])].sort();
    else
      joined.set(key, {
        apiGroups: r.apiGroups,
        resources: r.resources,
        verbs,
        ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
      });
  }
  const rules = [...joined.values()].sort((a, b) => {
    const ka = `${a.apiGroups[0]}\u0000${a.resources[0]}`;
    const kb = `${b.apiGroups[0]}\u0000${b.resources[0]}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

/** Serializes a ClusterRole as YAML. */
export function clusterRoleToYaml(role: ClusterRoleDocument): string {
  return `---\n${stringify(role, { lineWidth: 0 })}`;
}
