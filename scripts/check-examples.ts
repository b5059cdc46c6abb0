/**
 * The API docs' examples are tested code (issue 16 item 4): every constructor and primitive page
 * has an example, and every example is included from a test file with `{@includeCode}`, so it is
 * compiled and run by `pnpm test` — never pasted into the comment, where it would rot unseen.
 *
 *   node scripts/check-examples.ts     lists what is wrong and fails, or prints the counts
 *
 * Checked over every entry point of every package (`exports` in its package.json, sources read
 * through the `@kubeloom/source` condition, as `scripts/check-exports.ts` reads them):
 *
 * - **needs an example**: each exported function named `create*` or `start*` (a constructor), and
 *   each exported function of the primitive entry points ({@link PRIMITIVE_ENTRY_POINTS}: the
 *   building blocks a controller is made of). Its doc comment (any overload's) includes code
 *   from a `*.test.ts` file, under `@example` or in the text;
 * - **no pasted example**: an `@example` of any exported symbol holds an `{@includeCode}` and no
 *   code fence;
 * - **includes resolve**: each `{@includeCode file#a,b}` names a `*.test.ts` file beside the
 *   source that exists and has a `// #region a` … `// #endregion a` for each region.
 *
 * `scripts/check-examples.test.ts` runs it in `pnpm test`, and on planted packages that break
 * each rule.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { entryPoints, sourceProgram } from './check-exports.ts';

/**
 * Entry points whose every exported function is a primitive needing an example: krt's collection
 * primitives, controllers' queue, rate limiters, handlers and sharding, kclient's clients and
 * helpers. Other entry points need examples on their constructors (`create*`, `start*`).
 */
export const PRIMITIVE_ENTRY_POINTS: ReadonlySet<string> = new Set([
  '@kubeloom/krt',
  '@kubeloom/controllers',
  '@kubeloom/kclient',
]);

/** One exported symbol and what its examples look like. */
export interface ExampleEntry {
  /** The entry point exporting it, e.g. `@kubeloom/kclient`. */
  readonly specifier: string;
  /** The exported name. */
  readonly name: string;
  /** The declaring file, relative to the root. */
  readonly file: string;
  /** Whether it is a constructor or primitive that needs an example. */
  readonly needsExample: boolean;
  /** The `{@includeCode}` targets of its doc comments, as written (`./x.test.ts#region`). */
  readonly includes: readonly string[];
  /** `@example` tags without an `{@includeCode}` or with a code fence: pasted code. */
  readonly pasted: number;
}

/** The result of the check: every checked symbol and the problems found. */
export interface ExampleReport {
  readonly entries: readonly ExampleEntry[];
  readonly problems: readonly string[];
}

const INCLUDE = /\{@includeCode\s+([^}\s]+)\s*\}/g;

/** The full text of the doc comments of `decl` (tags included), as written. */
function docText(decl: ts.Node): string {
  const sf = decl.getSourceFile();
  return ts
    .getJSDocCommentsAndTags(decl)
    .filter((d) => ts.isJSDoc(d))
    .map((d) => sf.text.slice(d.pos, d.end))
    .join('\n');
}

/** The `@example` sections of a doc comment's text (up to the next block tag). */
function exampleSections(doc: string): string[] {
  const body = doc.replace(/^\s*\/?\*+\/?/gm, '');
  return body
    .split(/^\s*(?=@\w)/m)
    .filter((s) => s.startsWith('@example'))
    .map((s) => s.slice('@example'.length));
}

/** Problems with one `{@includeCode target}` written in `sourceFile`; empty when it resolves. */
export function includeProblems(sourceFile: string, target: string): string[] {
  const [file = '', regions = ''] = target.split('#');
  const where = path.resolve(path.dirname(sourceFile), file);
  if (!/\.test\.ts$/.test(file)) {
    return [`includes ${target}: examples come from a *.test.ts file, which \`pnpm test\` runs`];
  }
  if (!existsSync(where)) return [`includes ${target}: ${file} does not exist`];
  const text = readFileSync(where, 'utf8');
  return regions
    .split(',')
    .filter((r) => r !== '')
    .filter(
      (r) =>
        !new RegExp(`//\\s*#region\\s+${escapeRegExp(r)}\\s*$`, 'm').test(text) ||
        !new RegExp(`//\\s*#endregion\\s+${escapeRegExp(r)}\\s*$`, 'm').test(text),
    )
    .map((r) => `includes ${target}: ${file} has no \`// #region ${r}\` … \`// #endregion ${r}\``);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Checks the examples of every entry point under `root`; `primitives` names the primitive entry points. */
export function checkExamples(
  root: string,
  primitives: ReadonlySet<string> = PRIMITIVE_ENTRY_POINTS,
): ExampleReport {
  const entries = entryPoints(root);
  const program = sourceProgram(entries.map((e) => e.file));
  const checker = program.getTypeChecker();
  const out: ExampleEntry[] = [];
  const problems: string[] = [];
  const seen = new Set<ts.Symbol>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read the exports of ${entry.specifier} (${entry.file})`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decls = (symbol.declarations ?? []).filter((d) => !d.getSourceFile().isDeclarationFile);
      if (decls.length === 0 || seen.has(symbol)) continue;
      seen.add(symbol);
      const file = path.relative(root, decls[0]!.getSourceFile().fileName);
      const isFunction = (symbol.flags & ts.SymbolFlags.Function) !== 0;
      const needsExample =
        isFunction && (/^(create|start)[A-Z]/.test(exported.name) || primitives.has(entry.specifier));
      const includes: string[] = [];
      let pasted = 0;
      for (const decl of decls) {
        const doc = docText(decl);
        for (const m of doc.matchAll(INCLUDE)) {
          includes.push(m[1]!);
          for (const p of includeProblems(decl.getSourceFile().fileName, m[1]!)) {
            problems.push(`${entry.specifier} ${exported.name} (${file}): ${p}`);
          }
        }
        for (const section of exampleSections(doc)) {
          if (!section.includes('{@includeCode') || section.includes('```')) pasted++;
        }
      }
      const label = `${entry.specifier} ${exported.name} (${file})`;
      if (pasted > 0) {
        problems.push(
          `${label}: ${pasted} pasted @example(s); move the code into a test and include it with {@includeCode ./<file>.test.ts#<region>}`,
        );
      }
      if (needsExample && includes.length === 0) {
        problems.push(
          `${label}: no example; add a \`// #region ${exported.name}\` to a test beside it and \`@example\` + {@includeCode ./<file>.test.ts#${exported.name}} to its doc comment`,
        );
      }
      out.push({ specifier: entry.specifier, name: exported.name, file, needsExample, includes, pasted });
    }
  }
  return { entries: out, problems };
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const { entries, problems } = checkExamples(root);
  if (problems.length > 0) {
    console.error(`${problems.length} example problem(s):\n${problems.map((p) => `- ${p}`).join('\n')}`);
    process.exit(1);
  }
  const needed = entries.filter((e) => e.needsExample).length;
  const withExample = entries.filter((e) => e.includes.length > 0).length;
  console.log(
    `examples: all ${needed} constructors and primitives have a tested example; ${withExample} of ${entries.length} exported symbols include one`,
  );
}
