import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { sortKeys } from '../src/internal/sort-keys.ts';
import type { GeneratedFile } from '../src/ts-writer.ts';

/** The package directory (for test output that must resolve the workspace packages). */
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

/** A fresh, git-ignored output directory under the package. */
export function testOutputDir(name: string): string {
  const dir = path.join(PACKAGE_DIR, '.test-output', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes generated files under `dir`; returns the absolute paths. */
export function writeFiles(dir: string, files: readonly GeneratedFile[]): string[] {
  return files.map((f) => {
    const p = path.join(dir, f.path);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, f.content);
    return p;
  });
}

/** Compiles files with `tsc --strict` semantics (no emit) and returns the formatted diagnostics. */
export function compileStrict(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: false,
    customConditions: ['@kubeloom/source'],
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return msg;
    const pos = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${pos.line + 1}:${pos.character + 1}: ${msg}`;
  });
}

/** The CustomResourceDefinitions of a YAML text as plain JSON, exactly as written. */
export function parseCrdYaml(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as Record<string, unknown> | null)
    .filter((d): d is Record<string, unknown> => d?.kind === 'CustomResourceDefinition');
}

/** A CRD with only key order and version order normalized (for exact round-trip comparisons). */
export function normalizeCrd(crd: unknown): unknown {
  const copy = structuredClone(crd) as { spec?: { versions?: Array<{ name: string }> } };
  copy.spec?.versions?.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sortKeys(copy);
}
