import path from 'node:path';
import { parseCel } from '@kubeloom/codegen-runtime';
import ts from 'typescript';
import type { CodegenIssue } from '../codegen-error.ts';
import type { CelRule, SchemaNode, SourceLocation } from '../ir.ts';
import { type DocComment, type DocTag, parseArgs, parseDocComment } from './jsdoc.ts';

/**
 * A schema node still waiting for a marker its TypeScript type needs: `number` for
 * `@integer`/`@float`/`@format`, `number | string` for `@intOrString`, `unknown` and
 * `Record<string, unknown>` for `@preserveUnknownFields` (or `@object`).
 */
export type Pending = 'number' | 'intOrString' | 'unknown' | 'unknownMap';

/** A parsed doc comment and the file it is in (for messages). */
export interface Doc {
  /** The description and tags. */
  readonly comment: DocComment;
  /** The file, as messages show it. */
  readonly file: string;
}

const RULE_LOCATIONS = new WeakMap<CelRule, SourceLocation>();

/** Where a CEL rule read from TypeScript was written (its marker), for issues found after reading. */
export function ruleLocation(rule: CelRule): SourceLocation | undefined {
  return RULE_LOCATIONS.get(rule);
}

/**
 * The state one read of TypeScript sources shares: the type checker, the issues found so far,
 * the schema nodes waiting for a marker, the declarations being mapped (to catch recursion), and
 * the helpers that locate nodes, read doc comments and parse marker values (reporting bad ones).
 */
export class ReadContext {
  /** Every problem found so far. */
  readonly issues: CodegenIssue[] = [];
  /** Schema nodes waiting for a marker their type needs. */
  readonly pending = new WeakMap<SchemaNode, Pending>();
  /** The declarations being mapped, outermost first. */
  readonly stack: ts.Declaration[] = [];
  /** The program's type checker. */
  readonly checker: ts.TypeChecker;
  /** The input files (resolved paths). */
  readonly inputs: Set<string>;
  /** Messages show file names relative to this directory. */
  readonly baseDir: string;
  /** A context for one read. */
  constructor(checker: ts.TypeChecker, inputs: Set<string>, baseDir: string) {
    this.checker = checker;
    this.inputs = inputs;
    this.baseDir = baseDir;
  }

  /** `file` as messages show it: relative to the base directory when inside it. */
  display(file: string): string {
    const rel = path.relative(this.baseDir, file);
    return rel.startsWith('..') ? file : rel;
  }

  /** Where a node starts. */
  loc(node: ts.Node): SourceLocation {
    const sf = node.getSourceFile();
    const pos = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    return { file: this.display(sf.fileName), line: pos.line + 1, column: pos.character + 1 };
  }

  /** Where a tag of a doc comment is. */
  tagLoc(doc: Doc, tag: DocTag): SourceLocation {
    return { file: doc.file, line: tag.line, column: tag.column };
  }

  /** Records an issue at a node or a location. */
  error(at: ts.Node | SourceLocation, message: string): void {
    this.issues.push({
      message,
      location: 'kind' in at || 'getSourceFile' in at ? this.loc(at as ts.Node) : (at as SourceLocation),
    });
  }

  /** The last `/** … *\/` comment directly before a node. */
  docOf(node: ts.Node): Doc | undefined {
    const sf = node.getSourceFile();
    const ranges = [
      ...(ts.getTrailingCommentRanges(sf.text, node.getFullStart()) ?? []),
      ...(ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? []),
    ];
    const r = [...ranges]
      .reverse()
      .find((c) => sf.text.startsWith('/**', c.pos) && !sf.text.startsWith('/**/', c.pos));
    if (!r) return undefined;
    const start = sf.getLineAndCharacterOfPosition(r.pos);
    return {
      comment: parseDocComment(sf.text.slice(r.pos, r.end), start.line + 1, start.character + 1),
      file: this.display(sf.fileName),
    };
  }

  /** The number value of a tag; reports a missing or malformed one. */
  num(doc: Doc, tag: DocTag): number | undefined {
    const n = Number(tag.value);
    if (tag.value === '' || !Number.isFinite(n)) {
      this.error(this.tagLoc(doc, tag), `@${tag.name} needs a number, got ${JSON.stringify(tag.value)}`);
      return undefined;
    }
    return n;
  }

  /** The string value of a tag (bare or a JSON string); reports a missing or malformed one. */
  str(doc: Doc, tag: DocTag): string | undefined {
    const v = tag.value;
    if (v.startsWith('"')) {
      try {
        return JSON.parse(v) as string;
      } catch {
        this.error(this.tagLoc(doc, tag), `@${tag.name}: invalid quoted string ${v} (use a JSON string)`);
        return undefined;
      }
    }
    if (v.startsWith("'") && v.endsWith("'") && v.length > 1) {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name}: single quotes would be kept literally; write the value bare or as a JSON "string"`,
      );
      return undefined;
    }
    if (v === '') {
      this.error(this.tagLoc(doc, tag), `@${tag.name} needs a value`);
      return undefined;
    }
    return v;
  }

  /** The JSON value of a tag; reports a malformed one. */
  json(doc: Doc, tag: DocTag): unknown {
    try {
      return JSON.parse(tag.value);
    } catch {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name} takes a JSON value, got ${JSON.stringify(tag.value)} (strings need double quotes)`,
      );
      return undefined;
    }
  }

  /** The positional and `key=value` arguments of a tag; reports malformed ones. */
  args(doc: Doc, tag: DocTag): ReturnType<typeof parseArgs> | undefined {
    try {
      return parseArgs(tag.value);
    } catch (e) {
      this.error(this.tagLoc(doc, tag), `@${tag.name}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** `rule`, after reporting a CEL expression that does not parse. */
  celRule(doc: Doc, tag: DocTag, rule: CelRule): CelRule {
    RULE_LOCATIONS.set(rule, this.tagLoc(doc, tag));
    try {
      parseCel(rule.rule);
    } catch (e) {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name}: the CEL rule ${JSON.stringify(rule.rule)} does not parse: ${(e as Error).message}`,
      );
    }
    return rule;
  }

  /** Whether a declaration is in one of the input files. */
  isInput(decl: ts.Node): boolean {
    return this.inputs.has(path.resolve(decl.getSourceFile().fileName));
  }

  /** The symbol a name refers to, through import aliases. */
  resolveSymbol(name: ts.EntityName): ts.Symbol | undefined {
    let sym = this.checker.getSymbolAtLocation(name);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = this.checker.getAliasedSymbol(sym);
    return sym;
  }
}
