import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CodegenError } from './codegen-error.ts';
import { readCrds } from './crd-reader.ts';
import { crdsToYaml, resourceToCrd, type SchemaJsonOptions } from './crd-writer.ts';
import type { ApiModel, ResourceModel } from './ir.ts';
import { clusterRoleToYaml, permissionsToClusterRole } from './rbac.ts';
import { type ReadTypeScriptOptions, readTypeScript } from './ts-reader.ts';
import { type GeneratedFile, resourcesToTypeScript, type TypeScriptWriterOptions } from './ts-writer.ts';

/** Expands file names and glob patterns (sorted, deduplicated, relative to `cwd`). */
export function expandInputs(patterns: readonly string[], cwd = process.cwd()): string[] {
  const out = new Set<string>();
  for (const p of patterns) {
    if (/[*?{[]/.test(p)) {
      const matches = globSync(p, { cwd }).map((f) => path.resolve(cwd, f));
      if (matches.length === 0) throw new CodegenError([{ message: `the pattern ${p} matches no file` }]);
      for (const m of matches) out.add(m);
    } else {
      const abs = path.resolve(cwd, p);
      try {
        readFileSync(abs);
      } catch {
        throw new CodegenError([{ message: `input ${p} does not exist or is not readable` }]);
      }
      out.add(abs);
    }
  }
  return [...out].sort();
}

/** Options for {@link generateCrds}. */
export interface GenerateCrdsOptions extends ReadTypeScriptOptions, SchemaJsonOptions {
  /** The ClusterRole name for permission markers. Default `manager-role`. */
  readonly roleName?: string;
}

/** The result of {@link generateCrds}: the model and the files to write. */
export interface GenerateCrdsResult {
  /** What the TypeScript front end read. */
  readonly model: ApiModel;
  /** `<group>_<plural>.yaml` per CRD, and `role.yaml` when there are permission markers. */
  readonly files: GeneratedFile[];
}

/** TypeScript files with markers → CRD YAML files (+ a ClusterRole from `@rbac` markers). */
export function generateCrds(
  files: readonly string[],
  options: GenerateCrdsOptions = {},
): GenerateCrdsResult {
  const model = readTypeScript(files, options);
  const out: GeneratedFile[] = model.resources.map((r) => ({
    path: `${r.group}_${r.plural}.yaml`,
    content: crdsToYaml([resourceToCrd(r, options)]),
  }));
  if (model.permissions.length > 0) {
    out.push({
      path: 'role.yaml',
      content: clusterRoleToYaml(permissionsToClusterRole(model.permissions, options.roleName)),
    });
  }
  return { model, files: out.sort((a, b) => (a.path < b.path ? -1 : 1)) };
}

/** The result of {@link generateTypes}. */
export interface GenerateTypesResult {
  /** The resources read from the CRDs. */
  readonly resources: ResourceModel[];
  /** The TypeScript modules to write. */
  readonly files: GeneratedFile[];
}

/** CRD YAML files → TypeScript types, descriptors, validators and typed clients. */
export function generateTypes(
  files: readonly string[],
  options: TypeScriptWriterOptions & { readonly baseDir?: string } = {},
): GenerateTypesResult {
  const resources: ResourceModel[] = [];
  const issues = [];
  const base = options.baseDir ?? process.cwd();
  for (const f of files) {
    const rel = path.relative(base, f);
    const display = rel.startsWith('..') ? f : rel;
    try {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch (e) {
        throw new CodegenError([{ message: `cannot read ${display}: ${(e as Error).message}` }]);
      }
      resources.push(...readCrds(text, display));
    } catch (e) {
      if (e instanceof CodegenError) issues.push(...e.issues);
      else throw e;
    }
  }
  if (issues.length > 0) throw new CodegenError(issues);
  return { resources, files: resourcesToTypeScript(resources, options) };
}
