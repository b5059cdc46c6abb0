/**
 * The export-collision check (DESIGN §1.1: no two packages export the same name with different
 * meanings). Reads every entry point of every package (`exports` in its package.json, sources
 * through the `@kubeloom/source` condition) with the TypeScript compiler API and lists the names
 * exported by entry points of two different packages that are not the same declaration. A name a
 * package re-exports from another (the same symbol) is no collision.
 *
 * Run it with `node scripts/check-exports.ts`; `scripts/check-exports.test.ts` runs it in
 * `pnpm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One entry point of a package, e.g. `@kubeloom/kube/fake`. */
export interface EntryPoint {
  /** The package name, e.g. `@kubeloom/kube`. */
  readonly pkg: string;
  /** The import specifier, e.g. `@kubeloom/kube/fake`. */
  readonly specifier: string;
  /** The absolute path of its TypeScript source. */
  readonly file: string;
}

/** A name exported by entry points of two or more packages, with different declarations. */
export interface Collision {
  /** The exported name. */
  readonly name: string;
  /** Each entry point that exports it, with where its declaration lives. */
  readonly exportedBy: ReadonlyArray<{ readonly specifier: string; readonly declaredIn: string }>;
}

/**
 * Names that deliberately mean the same thing in two packages although they are declared twice.
 * Empty: a package that wants to offer another's name re-exports it.
 */
export const ALLOWED_DUPLICATES: ReadonlySet<string> = new Set<string>();

interface PackageJson {
  readonly name: string;
  readonly exports?: Record<string, string | Record<string, string>>;
}

/** Every source entry point of the packages under `root/packages`. */
export function entryPoints(root: string): EntryPoint[] {
  const out: EntryPoint[] = [];
  const packagesDir = path.join(root, 'packages');
  for (const dir of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const pkgDir = path.join(packagesDir, dir.name);
    let pkg: PackageJson;
    try {
      pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as PackageJson;
    } catch {
      continue;
    }
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === 'object' ? target['@kubeloom/source'] : undefined;
      if (!source?.endsWith('.ts')) continue;
      out.push({
        pkg: pkg.name,
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`,
        file: path.resolve(pkgDir, source),
      });
    }
  }
  return out.sort((a, b) => a.specifier.localeCompare(b.specifier));
}

/**
 * The names each entry point exports (values and types), mapped to a stable identity of their
 * declaration (`file:position`, aliases resolved), from one TypeScript program over them all.
 */
export function exportsOf(
  entries: readonly EntryPoint[],
  root: string,
): Map<EntryPoint, Map<string, string>> {
  const program = sourceProgram(entries.map((e) => e.file));
  const checker = program.getTypeChecker();
  const result = new Map<EntryPoint, Map<string, string>>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read the exports of ${entry.specifier} (${entry.file})`);
    const names = new Map<string, string>();
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decl = symbol.declarations?.[0];
      const where = decl
        ? `${path.relative(root, decl.getSourceFile().fileName)}:${decl.getStart()}`
        : `${entry.specifier}#${exported.name}`;
      names.set(exported.name, where);
    }
    result.set(entry, names);
  }
  return result;
}

/** The names exported by two packages with different declarations, minus `allowed`. */
export function findCollisions(root: string, allowed: ReadonlySet<string> = ALLOWED_DUPLICATES): Collision[] {
  const entries = entryPoints(root);
  const byName = new Map<string, Array<{ entry: EntryPoint; declaredIn: string }>>();
  for (const [entry, names] of exportsOf(entries, root)) {
    for (const [name, declaredIn] of names) {
      const list = byName.get(name) ?? [];
      list.push({ entry, declaredIn });
      byName.set(name, list);
    }
  }
  const collisions: Collision[] = [];
  for (const [name, list] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    if (allowed.has(name)) continue;
    const packages = new Set(list.map((x) => x.entry.pkg));
    const declarations = new Set(list.map((x) => x.declaredIn));
    if (packages.size < 2 || declarations.size < 2) continue;
    collisions.push({
      name,
      exportedBy: list.map((x) => ({
        specifier: x.entry.specifier,
        declaredIn: x.declaredIn.replace(/:\d+$/, ''),
      })),
    });
  }
  return collisions;
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const collisions = findCollisions(root);
  for (const c of collisions) {
    console.error(
      `${c.name} is exported with different meanings by ${c.exportedBy.map((e) => `${e.specifier} (${e.declaredIn})`).join(', ')}`,
    );
  }
  if (collisions.length > 0) {
    console.error(`${collisions.length} name(s) collide across packages: rename one side (DESIGN §1.1)`);
    process.exit(1);
  }
  console.error(`no export collisions across ${entryPoints(root).length} entry points`);
}

/**
 * One TypeScript program over the given source files as the workspace resolves them (the
 * `@kubeloom/source` condition, `.ts` imports): the checks that read the packages' exports share it.
 */
export function sourceProgram(rootNames: readonly string[], extra: ts.CompilerOptions = {}): ts.Program {
  return ts.createProgram({
    rootNames,
    options: {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['@kubeloom/source'],
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      ...extra,
    },
  });
}
