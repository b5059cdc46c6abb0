import path from 'node:path';
import ts from 'typescript';
import { CodegenError, type CodegenIssue } from './codegen-error.ts';
import { IGNORED_TAGS, MARKERS_BY_NAME } from './internal/marker-lookup.ts';
import { ReadContext } from './internal/read-context.ts';
import type { ApiModel, PolicyRuleModel } from './ir.ts';
import { checkTags } from './marker-schema.ts';
import { mergeResources, type ResourceVersion } from './merge-versions.ts';
import { checkResource } from './structural.ts';
import { readPermissions, readResource } from './ts-resource-reader.ts';
import { TypeMapper } from './ts-type-mapper.ts';

/** Options for {@link readTypeScript}. */
export interface ReadTypeScriptOptions {
  /** Compiler options for the program (module resolution of imports). Defaults suit ESM/NodeNext. */
  readonly compilerOptions?: ts.CompilerOptions;
  /** File names in messages are made relative to this directory. Default: the current directory. */
  readonly baseDir?: string;
  /** An existing program to read from (the files must be part of it). */
  readonly program?: ts.Program;
}

const DEFAULT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  customConditions: ['@kubeloom/source'],
};

/**
 * Reads resources and permissions from TypeScript source files. A resource is an exported
 * interface whose doc comment has `@group` and `@version`; its fields and every type they use
 * are mapped with the marker vocabulary (see {@link MARKERS}).
 *
 * @throws {@link CodegenError} listing every problem with file:line:column (unknown, misspelled or
 *   misplaced markers, types a CRD cannot express, a `number` without integer/float choice,
 *   rules a CRD would be rejected for).
 */
export function readTypeScript(files: readonly string[], options: ReadTypeScriptOptions = {}): ApiModel {
  const resolved = files.map((f) => path.resolve(f));
  const program =
    options.program ?? ts.createProgram(resolved, { ...DEFAULT_OPTIONS, ...options.compilerOptions });
  const baseDir = options.baseDir ?? process.cwd();
  const ctx = new ReadContext(program.getTypeChecker(), new Set(resolved), baseDir);
  const types = new TypeMapper(ctx);
  const found: ResourceVersion[] = [];
  const permissions: PolicyRuleModel[] = [];
  for (const file of resolved) {
    const sf = program.getSourceFile(file);
    if (!sf) {
      ctx.issues.push({
        message: `cannot read ${ctx.display(file)}`,
        location: { file: ctx.display(file), line: 1 },
      });
      continue;
    }
    for (const d of program.getSyntacticDiagnostics(sf)) {
      const pos =
        d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      ctx.issues.push({
        message: `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        location: { file: ctx.display(file), line: pos.line + 1, column: pos.character + 1 },
      });
    }
    for (const stmt of sf.statements) {
      const doc = ctx.docOf(stmt);
      if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt)) {
        const isResource = doc?.comment.tags.some((t) => t.name === 'group' || t.name === 'version') ?? false;
        if (doc) permissions.push(...readPermissions(ctx, doc));
        if (isResource && doc) {
          const exported = stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
          if (!exported) ctx.error(stmt.name, `resource ${stmt.name.text} must be exported`);
          const r = readResource(ctx, types, { decl: stmt, doc });
          if (r) found.push(r);
        } else if (ts.isInterfaceDeclaration(stmt)) {
          // check the markers of types no resource uses too, so typos never hide
          checkTags(ctx, doc, { target: 'type' });
          for (const m of stmt.members) checkTags(ctx, ctx.docOf(m), { target: 'field' });
        } else {
          checkTags(ctx, doc, { target: 'type' });
        }
      } else if (doc) {
        for (const t of doc.comment.tags) {
          if (t.name === 'rbac') continue;
          const spec = MARKERS_BY_NAME.get(t.name);
          if (spec && !IGNORED_TAGS.has(t.name) && stmt.kind !== ts.SyntaxKind.FunctionDeclaration) {
            ctx.error(
              { file: doc.file, line: t.line, column: t.column },
              `misplaced marker @${t.name}: markers belong on exported interfaces, type aliases and their fields`,
            );
          }
        }
        permissions.push(...readPermissions(ctx, doc));
      }
    }
  }
  const resources = mergeResources(found, ctx.issues);
  if (ctx.issues.length === 0) for (const r of resources) ctx.issues.push(...checkResource(r));
  if (ctx.issues.length > 0) throw new CodegenError(dedupe(ctx.issues));
  return { resources, permissions };
}

function dedupe(issues: CodegenIssue[]): CodegenIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.location?.file}:${i.location?.line}:${i.location?.column}:${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
