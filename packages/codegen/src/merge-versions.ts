import type { CodegenIssue } from './codegen-error.ts';
import { compareVersions } from './internal/compare-versions.ts';
import type { ResourceModel, VersionModel } from './ir.ts';

/** One version of a resource as a front end reads it: the resource with that version only. */
export interface ResourceVersion {
  /** The resource, its `versions` holding `version` alone. */
  readonly resource: ResourceModel;
  /** The version read. */
  readonly version: VersionModel;
}

/**
 * Merges the versions read separately into one resource per group and kind: reports a version
 * declared twice and versions that disagree on names, scope or `@conversion`; unions short
 * names, categories, annotations and labels; makes a lone version the storage version; sorts
 * versions newest first and resources by group and kind.
 */
export function mergeResources(found: readonly ResourceVersion[], issues: CodegenIssue[]): ResourceModel[] {
  const byKey = new Map<string, ResourceModel>();
  for (const { resource, version } of found) {
    const key = `${resource.group}/${resource.kind}`;
    const prev = byKey.get(key);
    if (!prev) {
      byKey.set(key, resource);
      continue;
    }
    if (prev.versions.some((v) => v.name === version.name)) {
      issues.push({
        message: `${resource.kind} version ${version.name} is declared twice (also at ${prev.location?.file}:${prev.location?.line})`,
        location: resource.location,
      });
      continue;
    }
    for (const k of ['plural', 'singular', 'listKind', 'scope'] as const) {
      if (prev[k] !== resource[k]) {
        issues.push({
          message: `versions of ${resource.kind} disagree on ${k}: ${prev[k]} vs ${resource[k]}`,
          location: resource.location,
        });
      }
    }
    prev.versions.push(version);
    if (resource.shortNames)
      prev.shortNames = [...new Set([...(prev.shortNames ?? []), ...resource.shortNames])];
    if (resource.categories)
      prev.categories = [...new Set([...(prev.categories ?? []), ...resource.categories])];
    if (resource.annotations) prev.annotations = { ...prev.annotations, ...resource.annotations };
    if (resource.labels) prev.labels = { ...prev.labels, ...resource.labels };
    if (resource.conversion) {
      if (prev.conversion && JSON.stringify(prev.conversion) !== JSON.stringify(resource.conversion)) {
        issues.push({
          message: `versions of ${resource.kind} disagree on @conversion`,
          location: resource.location,
        });
      }
      prev.conversion = resource.conversion;
    }
  }
  const out = [...byKey.values()];
  for (const r of out) {
    if (r.versions.length === 1) r.versions[0]!.storage = true;
    r.versions.sort((a, b) => compareVersions(b.name, a.name));
  }
  return out.sort((a, b) => (`${a.group}/${a.kind}` < `${b.group}/${b.kind}` ? -1 : 1));
}
