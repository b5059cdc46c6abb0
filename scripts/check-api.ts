/**
 * The API report (issue 11 item 6): `packages/<pkg>/api-report.md` lists every name each entry
 * point of the package exports (the `exports` map of its package.json, sources read through the
 * `@kubeloom/source` condition), with its kind and signature, as the TypeScript compiler sees it.
 * The reports are checked in, so a change to the public surface shows in review.
 *
 *   node scripts/check-api.ts            fails, naming the package, when a report is stale
 *   node scripts/check-api.ts --update   rewrites the reports
 *
 * (`pnpm check:api`, run by `.ci/run`; `scripts/check-api.test.ts` checks the rendering.) What is
 * rendered: classes and interfaces with their public members (private and `#` members left out),
 * functions with every overload, type aliases as written, variables with their declared or
 * inferred type. Doc comments and bodies are left out.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { type EntryPoint, entryPoints, sourceProgram } from './check-exports.ts';

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/** One package's report: where it goes and its text. */
export interface ApiReport {
  /** The package name, e.g. `@kubeloom/kube`. */
  readonly pkg: string;
  /** The absolute path of `api-report.md`. */
  readonly file: string;
  /** The report's text. */
  readonly text: string;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A type node as written, comments removed, on one line. */
function typeText(node: ts.Node): string {
  return oneLine(printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile())).replace(/^\| /, '');
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')');

function isHidden(member: ts.ClassElement | ts.TypeElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  const flags = ts.canHaveModifiers(member) ? ts.getCombinedModifierFlags(member as ts.Declaration) : 0;
  return (
    (flags & ts.ModifierFlags.Private) !== 0 ||
    ts.getJSDocTags(member).some((t) => t.tagName.text === 'internal')
  );
}

function renderMember(member: ts.ClassElement | ts.TypeElement, checker: ts.TypeChecker): string | undefined {
  if (isHidden(member)) return undefined;
  if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member)) return undefined;
  const modifiers = (ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [])
    .filter((m) => m.kind !== ts.SyntaxKind.AsyncKeyword && m.kind !== ts.SyntaxKind.OverrideKeyword)
    .map((m) => `${m.getText()} `)
    .join('');
  const name = member.name ? member.name.getText() : '';
  if (ts.isPropertyDeclaration(member) || ts.isPropertySignature(member)) {
    const optional = member.questionToken ? '?' : '';
    const type = member.type
      ? typeText(member.type)
      : checker.typeToString(checker.getTypeAtLocation(member), member, FORMAT);
    return `${modifiers}${name}${optional}: ${type};`;
  }
  if (
    ts.isMethodDeclaration(member) ||
    ts.isMethodSignature(member) ||
    ts.isConstructorDeclaration(member) ||
    ts.isGetAccessorDeclaration(member) ||
    ts.isSetAccessorDeclaration(member) ||
    ts.isCallSignatureDeclaration(member) ||
    ts.isConstructSignatureDeclaration(member)
  ) {
    // An overloaded method: its signatures are rendered, not its implementation.
    if (ts.isMethodDeclaration(member) && member.body && hasOverloads(member)) return undefined;
    if (ts.isConstructorDeclaration(member)) {
      const params = member.parameters.map((p) => {
        const type = p.type
          ? typeText(p.type)
          : checker.typeToString(checker.getTypeAtLocation(p), p, FORMAT);
        const optional = p.questionToken || p.initializer ? '?' : '';
        return `${p.dotDotDotToken ? '...' : ''}${p.name.getText()}${optional}: ${type}`;
      });
      return `${modifiers}constructor(${params.join(', ')});`;
    }
    const signature = checker.getSignatureFromDeclaration(member);
    const text = signature ? checker.signatureToString(signature, member, FORMAT) : typeText(member);
    const prefix = ts.isGetAccessorDeclaration(member)
      ? `get ${name}`
      : ts.isSetAccessorDeclaration(member)
        ? `set ${name}`
        : ts.isConstructSignatureDeclaration(member)
          ? 'new '
          : name;
    const optional = 'questionToken' in member && member.questionToken ? '?' : '';
    return `${modifiers}${prefix}${optional}${text};`;
  }
  return `${typeText(member).replace(/;$/, '')};`;
}

function hasOverloads(method: ts.MethodDeclaration): boolean {
  const name = method.name.getText();
  const siblings: readonly ts.Node[] = ts.isObjectLiteralExpression(method.parent)
    ? method.parent.properties
    : method.parent.members;
  return siblings.some(
    (m) => m !== method && ts.isMethodDeclaration(m) && m.name.getText() === name && m.body === undefined,
  );
}

function heritage(decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): string {
  const params = decl.typeParameters ? `<${decl.typeParameters.map((p) => typeText(p)).join(', ')}>` : '';
  const clauses = (decl.heritageClauses ?? []).map((c) => ` ${typeText(c)}`).join('');
  return oneLine(`${params}${clauses}`);
}

function renderBody(members: readonly string[]): string {
  return members.length === 0 ? '{}' : `{\n${members.map((m) => `  ${m}`).join('\n')}\n}`;
}

function renderDeclaration(name: string, decl: ts.Declaration, checker: ts.TypeChecker): string {
  if (ts.isClassDeclaration(decl)) {
    const abstract = ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Abstract ? 'abstract ' : '';
    const members = decl.members.map((m) => renderMember(m, checker)).filter((m) => m !== undefined);
    return `${abstract}class ${name}${heritage(decl)} ${renderBody(members)}`;
  }
  if (ts.isInterfaceDeclaration(decl)) {
    const members = decl.members.map((m) => renderMember(m, checker)).filter((m) => m !== undefined);
    return `interface ${name}${heritage(decl)} ${renderBody(members)}`;
  }
  if (ts.isTypeAliasDeclaration(decl)) {
    const params = decl.typeParameters ? `<${decl.typeParameters.map((p) => typeText(p)).join(', ')}>` : '';
    return `type ${name}${params} = ${typeText(decl.type)};`;
  }
  if (ts.isEnumDeclaration(decl)) {
    return `enum ${name} ${renderBody(decl.members.map((m) => `${typeText(m)},`))}`;
  }
  if (ts.isFunctionDeclaration(decl)) {
    const symbol = checker.getSymbolAtLocation(decl.name ?? decl);
    const type = symbol ? checker.getTypeOfSymbolAtLocation(symbol, decl) : checker.getTypeAtLocation(decl);
    return type
      .getCallSignatures()
      .map((s) => `function ${name}${checker.signatureToString(s, decl, FORMAT)};`)
      .join('\n');
  }
  if (ts.isVariableDeclaration(decl)) {
    const kind = decl.parent.flags & ts.NodeFlags.Const ? 'const' : 'let';
    const type = decl.type
      ? typeText(decl.type)
      : checker.typeToString(checker.getTypeAtLocation(decl), decl, FORMAT);
    return `${kind} ${name}: ${type};`;
  }
  if (ts.isModuleDeclaration(decl)) return `namespace ${name} { … }`;
  return `${ts.SyntaxKind[decl.kind]} ${name}`;
}

/** The package directory (`packages/<dir>`) a file belongs to, if any. */
function packageDirOf(file: string, root: string): string | undefined {
  const match = /^packages\/([^/]+)\//.exec(path.relative(root, file).split(path.sep).join('/'));
  return match?.[1];
}

/** Renders the API report of every package under `root/packages`. */
export function apiReports(root: string): ApiReport[] {
  const entries = entryPoints(root);
  const program = sourceProgram(
    entries.map((e) => e.file),
    { strict: true, exactOptionalPropertyTypes: true },
  );
  const byPackage = new Map<string, { dir: string; sections: string[] }>();
  for (const entry of entries) {
    const section = renderEntry(entry, program, root);
    const dir = path.dirname(path.dirname(entry.file));
    const pkgDir = packageRoot(entry.file);
    const current = byPackage.get(entry.pkg) ?? { dir: pkgDir ?? dir, sections: [] };
    current.sections.push(section);
    byPackage.set(entry.pkg, current);
  }
  return [...byPackage].map(([pkg, { dir, sections }]) => ({
    pkg,
    file: path.join(dir, 'api-report.md'),
    text: [
      `# API report: \`${pkg}\``,
      '',
      'Every name each entry point of the package exports, with its kind and signature (doc comments',
      'and bodies left out). Generated by `pnpm check:api --update` (`scripts/check-api.ts`); CI fails',
      'when it is stale, so a change to the public surface shows here in review.',
      '',
      ...sections,
    ].join('\n'),
  }));
}

function packageRoot(file: string): string | undefined {
  let dir = path.dirname(file);
  while (dir !== path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return undefined;
}

function renderEntry(entry: EntryPoint, program: ts.Program, root: string): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry.file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`cannot read the exports of ${entry.specifier} (${entry.file})`);
  const ownDir = packageDirOf(entry.file, root);
  const lines: string[] = [];
  const exported = [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => a.name.localeCompare(b.name));
  for (const symbol of exported) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const decls = (target.declarations ?? []).filter(
      (d) => !(ts.isFunctionDeclaration(d) && d.body && (target.declarations?.length ?? 0) > 1),
    );
    const first = decls[0];
    if (!first) {
      lines.push(`// ${symbol.name}: no declaration`);
      continue;
    }
    const from = packageDirOf(first.getSourceFile().fileName, root);
    const origin = from && from !== ownDir ? ` // re-exported from packages/${from}` : '';
    // `export type` marks a value (a class, function or constant) exported as a type only.
    const typeOnly =
      symbol.flags & ts.SymbolFlags.Alias &&
      symbol.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d)) &&
      target.flags & ts.SymbolFlags.Value;
    // A function's overloads are one declaration each: render them once, from the first.
    const rendered = ts.isFunctionDeclaration(first)
      ? [renderDeclaration(symbol.name, first, checker)]
      : decls.map((d) => renderDeclaration(symbol.name, d, checker));
    lines.push(
      rendered
        .join('\n')
        .split('\n')
        .map((l) =>
          /^(abstract |function |const |let |class |interface |type |enum |namespace )/.test(l)
            ? `${typeOnly ? 'export type ' : 'export '}${l}`
            : l,
        )
        .join('\n') + origin,
    );
  }
  return [`## \`${entry.specifier}\``, '', '```ts', ...lines, '```', ''].join('\n');
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const update = process.argv.includes('--update');
  const stale: string[] = [];
  for (const report of apiReports(root)) {
    const current = existsSync(report.file) ? readFileSync(report.file, 'utf8') : undefined;
    if (current === report.text) continue;
    if (update) {
      writeFileSync(report.file, report.text);
      console.error(`updated ${path.relative(root, report.file)}`);
    } else {
      stale.push(path.relative(root, report.file));
    }
  }
  if (stale.length > 0) {
    console.error(
      `the API report is stale: ${stale.join(', ')}\n` +
        'the public surface changed: run `pnpm check:api --update` and commit the report with the change',
    );
    process.exit(1);
  }
  if (!update) console.error('API reports are up to date');
}
