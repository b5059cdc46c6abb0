import { isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from 'yaml';
import type { CodegenIssue } from '../codegen-error.ts';
import type { SourceLocation } from '../ir.ts';

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** Appends a map key to a document path: `.key`, or `["key"]` when the key is not a plain name. */
function appendYamlKey(path: string, key: string): string {
  if (!PLAIN_KEY.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * What reading one YAML file found: its issues, each with the `file:line:column` and the path
 * within the document (`spec.versions[0].schema.openAPIV3Schema.properties.spec.type`) of the
 * offending node.
 */
export class YamlContext {
  /** Every problem found so far. */
  readonly issues: CodegenIssue[] = [];
  /** The file name used in locations. */
  readonly file: string;
  /** Maps offsets to lines and columns. */
  readonly lc: LineCounter;
  readonly #paths = new Map<Node | Pair, string>();
  readonly #roots: Node[] = [];

  /** Creates the context of one file. */
  constructor(file: string, lc: LineCounter) {
    this.file = file;
    this.lc = lc;
  }

  /**
   * Registers a document's root, so that issues at its nodes carry their path (computed only when
   * the first issue is recorded: reading a valid file costs nothing).
   */
  addDocument(root: Node): void {
    this.#roots.push(root);
  }

  #index(node: Node | null, path: string): void {
    if (node === null) return;
    if (path) this.#paths.set(node, path);
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const sub = appendYamlKey(path, key);
        this.#paths.set(pair, sub);
        this.#index((pair.value as Node | null) ?? null, sub);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        this.#index((item as Node | null) ?? null, `${path}[${i}]`);
      });
    }
  }

  /** The location of a node (of a pair: its key), or line 1 when unknown. */
  loc(node: Node | Pair | null | undefined): SourceLocation {
    let range: [number, number, number] | null | undefined;
    if (node && 'range' in node) range = node.range;
    else if (node && 'key' in node) range = (node.key as Node | null)?.range;
    if (!range) return { file: this.file, line: 1 };
    const pos = this.lc.linePos(range[0]);
    return { file: this.file, line: pos.line, column: pos.col };
  }

  /** Records a problem at a node, with its location and document path. */
  error(node: Node | Pair | null | undefined, message: string): void {
    for (const root of this.#roots.splice(0)) this.#index(root, '');
    const path = node ? this.#paths.get(node) : undefined;
    this.issues.push({ message, location: this.loc(node), ...(path ? { path } : {}) });
  }
}
