import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CodegenError, type CodegenIssue } from './codegen-error.ts';
import { type ReadCrdsOptions, readCrds } from './crd-reader.ts';
import { crdsToYaml, resourceToCrd, type SchemaJsonOptions } from './crd-writer.ts';
import { ruleCostIssues } from './internal/cel-cost/resource-costs.ts';
import { compareVersions } from './internal/compare-versions.ts';
import { ruleLocation } from './internal/read-context.ts';
import { duplicateModuleIssue, versionIndexFiles } from './internal/version-index.ts';
import type { ApiModel, ResourceModel, VersionModel } from './ir.ts';
import { PartialGenerationError } from './partial-generation-error.ts';
import { clusterRoleToYaml, permissionsToClusterRole } from './rbac.ts';
import { type ReadTypeScriptOptions, readTypeScript } from './ts-reader.ts';
import {
  type GeneratedFile,
  moduleFileName,
  type TypeScriptWriterOptions,
  versionDirectory,
  versionToTypeScript,
} from './ts-writer.ts';

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

/**
 * TypeScript files with markers → CRD YAML files (+ a ClusterRole from `@rbac` markers).
 *
 * @throws {@link CodegenError} for problems in the sources (nothing is generated).
 * @throws {@link PartialGenerationError} when resources have CEL rules kube-apiserver would
 *   reject for their estimated cost: each such rule is an issue at its marker, those CRDs are not
 *   generated, and `result` carries the other CRDs and the role.
 */
export function generateCrds(
  files: readonly string[],
  options: GenerateCrdsOptions = {},
): GenerateCrdsResult {
  const model = readTypeScript(files, options);
  const issues: CodegenIssue[] = [];
  const failed: string[] = [];
  const out: GeneratedFile[] = [];
  for (const r of model.resources) {
    const costs = ruleCostIssues(r, ruleLocation);
    if (costs.length > 0) {
      issues.push(...costs);
      failed.push(`${r.plural}.${r.group}`);
      continue;
    }
    out.push({ path: `${r.group}_${r.plural}.yaml`, content: crdsToYaml([resourceToCrd(r, options)]) });
  }
  if (model.permissions.length > 0) {
    out.push({
      path: 'role.yaml',
      content: clusterRoleToYaml(permissionsToClusterRole(model.permissions, options.roleName)),
    });
  }
  const result = { model, files: out.sort((a, b) => (a.path < b.path ? -1 : 1)) };
  if (issues.length > 0) throw new PartialGenerationError(issues, result, failed.sort());
  return result;
}

/** Options for {@link generateTypes}. */
export interface GenerateTypesOptions extends TypeScriptWriterOptions, ReadCrdsOptions {
  /** File names in messages are made relative to this directory. Default: the current directory. */
  readonly baseDir?: string;
  /**
   * Generate only these versions (e.g. `['v1', 'v1beta1']`); a CRD without any of them generates
   * nothing, and a version no input has is an issue. Default: every version.
   */
  readonly versions?: readonly string[];
}

/** The result of {@link generateTypes}. */
export interface GenerateTypesResult {
  /** The resources the modules were generated from (with only the chosen versions). */
  readonly resources: ResourceModel[];
  /** The TypeScript modules to write. */
  readonly files: GeneratedFile[];
}

interface Module {
  readonly path: string;
  readonly content: string;
  readonly resource: ResourceModel;
  readonly version: VersionModel;
}

interface InputOutput {
  readonly input: string;
  readonly resources: ResourceModel[];
  readonly modules: Module[];
}

function chosenVersions(resources: readonly ResourceModel[], chosen: ReadonlySet<string> | undefined) {
  if (!chosen) return [...resources];
  return resources.flatMap((r) => {
    const versions = r.versions.filter((v) => chosen.has(v.name));
    return versions.length > 0 ? [{ ...r, versions }] : [];
  });
}

function versionFilterIssues(
  chosen: ReadonlySet<string>,
  read: readonly ResourceModel[],
  unreadable: boolean,
): CodegenIssue[] {
  if (chosen.size === 0)
    return [{ message: 'the version list is empty: name at least one version, e.g. v1' }];
  const present = new Set(read.flatMap((r) => r.versions.map((v) => v.name)));
  const missing = [...chosen].filter((v) => !present.has(v));
  if (missing.length === 0) return [];
  const have = present.size > 0 ? [...present].sort(compareVersions).reverse().join(', ') : 'none';
  return [
    {
      message: `no input CRD has version ${missing.join(', ')} (the inputs${unreadable ? ' that could be read' : ''} have ${have}); check the spelling, or leave ${missing.length > 1 ? 'these versions' : 'it'} out of the version list`,
    },
  ];
}

/**
 * CRD YAML files → TypeScript types, descriptors, validators and typed clients.
 *
 * Each input stands alone: one with a problem (unreadable, malformed, rejected by the
 * structural checks, or declaring a kind and version another input declares too) generates
 * nothing, and the others generate as usual.
 *
 * @throws {@link PartialGenerationError} when any input has a problem or a chosen version is in
 *   no input: it lists every issue and carries the outputs of the inputs that were fine.
 */
export function generateTypes(
  files: readonly string[],
  options: GenerateTypesOptions = {},
): GenerateTypesResult {
  const issues: CodegenIssue[] = [];
  const failed = new Set<string>();
  const outputs: InputOutput[] = [];
  const readOk: ResourceModel[] = [];
  const chosen = options.versions ? new Set(options.versions) : undefined;
  const base = options.baseDir ?? process.cwd();
  const readOptions = options.skipStructuralChecks ? { skipStructuralChecks: true } : {};
  for (const f of files) {
    const rel = path.relative(base, f);
    const input = rel.startsWith('..') ? f : rel;
    try {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch (e) {
        throw new CodegenError([{ message: `cannot read ${input}: ${(e as Error).message}` }]);
      }
      const read = readCrds(text, input, readOptions);
      readOk.push(...read);
      const resources = chosenVersions(read, chosen);
      const modules = resources.flatMap((resource) =>
        resource.versions.map((version) => ({
          path: `${versionDirectory(resource, version)}/${moduleFileName(resource)}`,
          content: versionToTypeScript(resource, version, options),
          resource,
          version,
        })),
      );
      outputs.push({ input, resources, modules });
    } catch (e) {
      if (!(e instanceof CodegenError)) throw e;
      issues.push(...e.issues);
      failed.add(input);
    }
  }
  if (chosen) issues.push(...versionFilterIssues(chosen, readOk, failed.size > 0));
  const claims = new Map<string, Array<{ readonly input: string; readonly module: Module }>>();
  for (const o of outputs) {
    for (const m of o.modules)
      claims.set(m.path, [...(claims.get(m.path) ?? []), { input: o.input, module: m }]);
  }
  for (const [file, [first, ...again]] of claims) {
    for (const c of again) {
      const inputs = [...new Set([first!.input, c.input])];
      issues.push(
        duplicateModuleIssue({
          file,
          first: first!.module.resource,
          again: c.module.resource,
          version: c.module.version,
          consequence: `; nothing is generated from ${inputs.join(' or ')} until one declaration is removed or renamed`,
        }),
      );
      for (const i of inputs) failed.add(i);
    }
  }
  const good = outputs.filter((o) => !failed.has(o.input));
  const modules = good.flatMap((o) => o.modules);
  const generated = [
    ...modules.map(({ path: p, content }) => ({ path: p, content })),
    ...versionIndexFiles(
      modules.map((m) => m.path),
      options.importExtension ?? '.ts',
    ),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const result = { resources: good.flatMap((o) => o.resources), files: generated };
  if (issues.length > 0) throw new PartialGenerationError(issues, result, [...failed].sort());
  return result;
}
