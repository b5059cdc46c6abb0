// A port of cel-go's static cost estimator (`checker/cost.go`, v0.29) over our CEL AST, with the
// macros expanded into the comprehensions cel-go's parser makes of them, the types cel-go's
// checker would give each node (enough to choose overloads), and the apiserver's schema-derived
// size estimator (`sizeEstimator` in apiextensions-apiserver/pkg/apiserver/schema/cel).
import { type CelExpr, TYPE_IDENTIFIERS } from '@kubeloom/codegen-runtime';
import {
  BOOL,
  type CelType,
  celTypeOf,
  DYN,
  INT,
  isScalar,
  isStringLike,
  listOf,
  optionalOf,
  STRING,
} from './cel-type.ts';
import type { DeclType } from './decl-type.ts';
import { add, COST, fixed, MAX, multiply, type Range, scale, UNKNOWN, union } from './estimate.ts';
import { type CostNode, callResultType, libraryCallCost } from './library-cost.ts';
import { ACCU, type Call, type Comprehension, expandMacro, type Node } from './macros.ts';

interface Entry {
  readonly list: boolean;
  readonly key: Range;
  readonly val: Range;
}

interface LocalVar {
  readonly path: readonly string[] | undefined;
  readonly size: Range | undefined;
  readonly entry: Entry | undefined;
  readonly type: CelType;
}

const NAMESPACES = new Set(['sets', 'optional', 'strings', 'format', 'ip', 'lists', 'math']);

/** The variables a rule sees: `self` and `oldSelf` of the node's type. */
export interface CostScope {
  /** The type of the node the rule sits on (the root of every schema path). */
  readonly root: DeclType;
  /** `oldSelf` is an optional (`optionalOldSelf: true`). */
  readonly optionalOldSelf?: boolean;
}

/** Estimates the worst-case cost of a parsed rule, as `cel.Env.EstimateCost` does for the apiserver. */
export function estimateCost(expr: CelExpr, scope: CostScope): Range {
  return new Coster(scope).cost(expr);
}

class Coster {
  private readonly scope: CostScope;
  private readonly selfType: CelType;
  private readonly paths = new Map<Node, readonly string[]>();
  private readonly sizes = new Map<Node, Range>();
  private readonly entries = new Map<Node, Entry>();
  private readonly types = new Map<Node, CelType>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(scope: CostScope) {
    this.scope = scope;
    this.selfType = celTypeOf(scope.root);
  }

  cost(e: Node): Range {
    const [cost, type] = this.costAndType(e);
    this.types.set(e, type);
    return cost;
  }

  private typeOf(e: Node): CelType {
    return this.types.get(e) ?? DYN;
  }

  private local(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack?.[stack.length - 1];
  }

  private push(name: string, v: LocalVar): void {
    const stack = this.locals.get(name) ?? [];
    stack.push(v);
    this.locals.set(name, stack);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pathOf(e: Node): readonly string[] | undefined {
    if (e.kind === 'ident') {
      const v = this.local(e.name);
      if (v) return v.path;
    }
    return this.paths.get(e);
  }

  /** The apiserver's size estimator: walk the rule's schema along the path (after `self`). */
  readonly sizeOfPath = (path: readonly string[] | undefined): Range | undefined => {
    if (!path?.length) return undefined;
    let node: DeclType | undefined = this.scope.root;
    for (const step of path.slice(1)) {
      if (step === '@items' || step === '@values') node = node.elem;
      else if (step === '@keys')
        node = node.kind === 'map' ? { kind: 'string', maxElements: 0, minSerializedSize: 2 } : undefined;
      else node = node.fields?.get(step);
      if (!node) return undefined;
    }
    return { min: 0, max: node.maxElements };
  };

  /** cel-go's `computeSize`. */
  private sizeOf(e: Node): Range | undefined {
    const known = this.sizes.get(e);
    if (known) return known;
    const literal = literalSize(e);
    if (literal) return literal;
    const estimated = this.sizeOfPath(this.pathOf(e));
    if (estimated) {
      this.sizes.set(e, estimated);
      return estimated;
    }
    if (isScalar(this.typeOf(e))) return fixed(1);
    if (e.kind === 'ident') return this.local(e.name)?.size;
    return undefined;
  }

  private sizeOrUnknown(e: Node): Range {
    return this.sizeOf(e) ?? UNKNOWN;
  }

  private entryOf(e: Node): Entry | undefined {
    const known = this.entries.get(e);
    if (known) return known;
    if (e.kind === 'ident') return this.local(e.name)?.entry;
    return undefined;
  }

  private costNode(e: CelExpr): CostNode {
    let path = this.pathOf(e);
    if (path?.[0] === ACCU) path = undefined;
    return { expr: e, path, type: this.typeOf(e), size: this.sizeOf(e) };
  }

  private costAndType(e: Node): [Range, CelType] {
    switch (e.kind) {
      case 'literal':
        return [fixed(COST.constant), literalType(e.value)];
      case 'ident':
        return this.costIdent(e.name, e);
      case 'select':
        return this.costSelect(e);
      case 'index':
        return this.costIndex(e);
      case 'list': {
        let sum = fixed(0);
        let item: Range = e.items.length === 0 ? fixed(0) : { min: MAX, max: 0 };
        for (const x of e.items) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOrUnknown(x));
        }
        this.entries.set(e, { list: true, key: fixed(1), val: item });
        const first = e.items[0];
        return [add(sum, fixed(COST.listCreate)), listOf(first ? this.typeOf(first) : DYN)];
      }
      case 'map': {
        let sum = fixed(0);
        const empty = e.entries.length === 0;
        let key: Range = empty ? fixed(0) : { min: MAX, max: 0 };
        let val: Range = empty ? fixed(0) : { min: MAX, max: 0 };
        for (const [k, v] of e.entries) {
          sum = add(add(sum, this.cost(k)), this.cost(v));
          key = union(key, this.sizeOrUnknown(k));
          val = union(val, this.sizeOrUnknown(v));
        }
        this.entries.set(e, { list: false, key, val });
        const first = e.entries[0];
        const type: CelType = first
          ? { k: 'map', key: this.typeOf(first[0]), value: this.typeOf(first[1]) }
          : { k: 'map', key: DYN, value: DYN };
        return [add(sum, fixed(COST.mapCreate)), type];
      }
      case 'unary': {
        const c = this.cost(e.operand);
        return [add(c, fixed(1)), e.op === '!' ? BOOL : this.typeOf(e.operand)];
      }
      case 'ternary':
        return this.costConditional(e, e.cond, [e.then, e.else]);
      case 'binary':
        return this.costBinary(e);
      case 'call':
        return this.costCall(e);
      case 'comprehension':
        return this.costComprehension(e);
    }
  }

  private costIdent(name: string, e: Node): [Range, CelType] {
    const v = this.local(name);
    if (v) return [fixed(COST.selectAndIdent), v.type];
    this.paths.set(e, [name]);
    let type: CelType = DYN;
    if (name === 'self') type = this.selfType;
    else if (name === 'oldSelf')
      type = this.scope.optionalOldSelf ? optionalOf(this.selfType) : this.selfType;
    else if (TYPE_IDENTIFIERS.has(name)) type = { k: 'type' };
    return [fixed(COST.selectAndIdent), type];
  }

  private costSelect(e: Extract<CelExpr, { kind: 'select' }>): [Range, CelType] {
    let sum = this.cost(e.operand);
    const t = this.typeOf(e.operand);
    const fieldType = selectType(t, e.field);
    if (e.optional) {
      // `a.?f` is the call `_?._`(a, "f"): the default call cost
      return [add(sum, fixed(1)), optionalOf(fieldType)];
    }
    if (t.k === 'map' || t.k === 'struct') sum = add(sum, fixed(COST.selectAndIdent));
    this.paths.set(e, [...(this.pathOf(e.operand) ?? []), e.field]);
    return [sum, fieldType];
  }

  private costIndex(e: Extract<CelExpr, { kind: 'index' }>): [Range, CelType] {
    const sum = add(add(this.cost(e.operand), this.cost(e.index)), fixed(1));
    const t = this.typeOf(e.operand);
    const elem: CelType = t.k === 'list' ? t.elem : t.k === 'map' ? t.value : DYN;
    if (e.optional) return [sum, optionalOf(elem)];
    if (t.k === 'list' || t.k === 'map' || t.k === 'dyn') {
      const size = this.entryOf(e.operand)?.val;
      this.paths.set(e, [...(this.pathOf(e.operand) ?? []), t.k === 'list' ? '@items' : '@values']);
      const resultSize = size ?? this.sizeOf(e);
      if (resultSize) this.sizes.set(e, resultSize);
    }
    return [sum, elem];
  }

  private costConditional(e: Node, cond: CelExpr, [a, b]: [CelExpr, CelExpr]): [Range, CelType] {
    const c = this.cost(cond);
    const ca = this.cost(a);
    const cb = this.cost(b);
    this.sizes.set(e, union(this.sizeOrUnknown(a), this.sizeOrUnknown(b)));
    const ea = this.entryOf(a);
    const eb = this.entryOf(b);
    if (ea && eb)
      this.entries.set(e, { list: ea.list, key: union(ea.key, eb.key), val: union(ea.val, eb.val) });
    const ta = this.typeOf(a);
    return [add(c, union(ca, cb)), ta.k === 'dyn' ? this.typeOf(b) : ta];
  }

  private costBinary(e: Extract<CelExpr, { kind: 'binary' }>): [Range, CelType] {
    const l = this.cost(e.left);
    const r = this.cost(e.right);
    const args = add(l, r);
    const lt = this.typeOf(e.left);
    const rt = this.typeOf(e.right);
    switch (e.op) {
      case '&&':
      case '||':
        return [{ min: l.min, max: args.max }, BOOL];
      case '==':
      case '!=':
        return [add(this.equalityCost(e.left, e.right), args), BOOL];
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const stringy = isStringLike(lt) || isStringLike(rt) || (lt.k === 'dyn' && rt.k === 'dyn');
        return [add(stringy ? this.compareBySize(e.left, e.right) : fixed(1), args), BOOL];
      }
      case 'in': {
        const inList = scale(this.sizeOrUnknown(e.right), 1);
        if (rt.k === 'list') return [add(inList, args), BOOL];
        if (rt.k === 'dyn') return [add(union(inList, fixed(1)), args), BOOL];
        return [add(fixed(1), args), BOOL];
      }
      case '+':
        return this.costAdd(e, args);
      default: {
        let type = lt.k === 'dyn' ? rt : lt;
        if (e.op === '-' && lt.k === 'timestamp' && rt.k === 'timestamp') type = { k: 'duration' };
        return [add(fixed(1), args), type];
      }
    }
  }

  private costAdd(e: Node & { left: CelExpr; right: CelExpr }, args: Range): [Range, CelType] {
    const lt = this.typeOf(e.left);
    const rt = this.typeOf(e.right);
    const t = lt.k === 'dyn' ? rt : lt;
    const concat = t.k === 'string' || t.k === 'bytes' || t.k === 'list' || t.k === 'dyn';
    if (!concat) {
      const type = lt.k === 'duration' && rt.k === 'timestamp' ? rt : t;
      return [add(fixed(1), args), type];
    }
    const resultSize = add(this.sizeOrUnknown(e.left), this.sizeOrUnknown(e.right));
    const el = this.entryOf(e.left);
    const er = this.entryOf(e.right);
    if (el && er)
      this.entries.set(e, { list: el.list, key: union(el.key, er.key), val: union(el.val, er.val) });
    this.sizes.set(e, resultSize);
    const type = t.k === 'list' && t.elem.k === 'dyn' && rt.k === 'list' ? rt : t;
    if (t.k === 'list') return [add(fixed(1), args), type];
    const stringCost = add(scale(resultSize, COST.stringTraversal), args);
    // dyn + dyn: every add overload is possible, the union of their costs
    return [t.k === 'dyn' ? union(stringCost, add(fixed(1), args)) : stringCost, type];
  }

  /** `_==_`: Kubernetes' O(1) equality of its opaque types, else cel-go's size-bound comparison. */
  private equalityCost(a: CelExpr, b: CelExpr): Range {
    const ta = this.typeOf(a);
    const tb = this.typeOf(b);
    if (ta.k === 'opaque' && tb.k === 'opaque' && ta.name === tb.name) {
      switch (ta.name) {
        case 'net.IP':
        case 'net.CIDR':
        case 'kubernetes.Quantity':
        case 'kubernetes.Semver':
          return fixed(1);
        case 'kubernetes.NamedFormat':
          return scale({ min: 1, max: 64 }, COST.stringTraversal);
        case 'kubernetes.URL': {
          const rs = this.sizeOf(b);
          return scale({ min: 1, max: rs ? rs.max : 1 }, COST.stringTraversal);
        }
      }
    }
    return this.compareBySize(a, b);
  }

  private compareBySize(a: CelExpr, b: CelExpr): Range {
    const smallestMax = Math.min(this.sizeOrUnknown(a).max, this.sizeOrUnknown(b).max);
    return scale({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, COST.stringTraversal);
  }

  private costCall(e: Call): [Range, CelType] {
    const macro = expandMacro(e);
    if (macro) {
      const cost = this.cost(macro);
      const size = this.sizes.get(macro);
      if (size) this.sizes.set(e, size);
      const entry = this.entries.get(macro);
      if (entry) this.entries.set(e, entry);
      return [cost, this.typeOf(macro)];
    }
    if (!e.target && e.fn === 'has' && e.args[0]?.kind === 'select') {
      // presence test: has() costs nothing itself in the apiserver's environment
      const sel = e.args[0];
      return [this.cost(sel.operand), BOOL];
    }
    if (!e.target && e.fn === 'dyn' && e.args.length === 1) {
      const arg = e.args[0]!;
      const c = this.cost(arg);
      const size = this.sizeOf(arg);
      if (size) this.sizes.set(e, size);
      const entry = this.entryOf(arg);
      if (entry) this.entries.set(e, entry);
      return [add(fixed(1), c), DYN];
    }
    const namespaced =
      e.target?.kind === 'ident' && NAMESPACES.has(e.target.name) && !this.local(e.target.name);
    const fn = namespaced ? `${(e.target as { name: string }).name}.${e.fn}` : e.fn;
    const target = namespaced ? undefined : e.target;
    let sum = fixed(0);
    for (const a of e.args) sum = add(sum, this.cost(a));
    if (target) sum = add(sum, this.cost(target));
    const targetNode = target ? this.costNode(target) : undefined;
    const argNodes = e.args.map((a) => this.costNode(a));
    const est = libraryCallCost({ fn, target: targetNode, args: argNodes, sizer: this.sizeOfPath });
    const type = callResultType(
      fn,
      targetNode?.type,
      argNodes.map((a) => a.type),
    );
    this.types.set(e, type);
    const resultSize = est?.resultSize ?? this.sizeOf(e);
    if (resultSize) this.sizes.set(e, resultSize);
    return [add(est?.cost ?? fixed(1), sum), type];
  }

  private costComprehension(e: Comprehension): [Range, CelType] {
    let sum = add(this.cost(e.range), this.cost(e.accuInit));
    this.pushLocal(ACCU, e.accuInit);
    const rangeType = this.typeOf(e.range);
    const entry = this.entryOf(e.range);
    const isList = entry ? entry.list : rangeType.k === 'list';
    const rangePath = this.pathOf(e.range) ?? [];
    const elem: CelType =
      rangeType.k === 'list' ? rangeType.elem : rangeType.k === 'map' ? rangeType.value : DYN;
    const key: CelType = rangeType.k === 'map' ? rangeType.key : rangeType.k === 'list' ? INT : DYN;
    if (e.iterVar2 !== undefined) {
      this.push(e.iterVar, {
        path: [...rangePath, isList ? '@indices' : '@keys'],
        size: entry?.key,
        entry: undefined,
        type: key,
      });
      this.push(e.iterVar2, {
        path: [...rangePath, isList ? '@items' : '@values'],
        size: entry?.val,
        entry: undefined,
        type: elem,
      });
    } else {
      this.push(e.iterVar, {
        path: [...rangePath, isList ? '@items' : '@keys'],
        size: isList ? entry?.val : entry?.key,
        entry: undefined,
        type: rangeType.k === 'list' ? elem : key,
      });
    }
    const loopCost = this.cost(e.cond);
    const stepCost = this.cost(e.step);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(ACCU);
    const rangeCount = this.sizeOrUnknown(e.range);
    sum = add(sum, multiply(rangeCount, add(stepCost, loopCost)));
    if (e.accuInit.kind === 'literal') {
      const size = this.sizeOf(e.accuInit);
      if (size) this.sizes.set(e, size);
    } else {
      this.sizes.set(e, rangeCount);
      const stepEntry = this.entries.get(e.step);
      if (stepEntry) this.entries.set(e, stepEntry);
    }
    return [sum, e.type(rangeType, e.step.kind === 'binary' ? this.typeOf(e.step) : this.typeOf(e.step))];
  }

  private pushLocal(name: string, init: CelExpr): void {
    this.push(name, {
      path: this.pathOf(init),
      size: this.sizeOf(init),
      entry: this.entryOf(init),
      type: this.typeOf(init),
    });
  }
}

function literalSize(e: Node): Range | undefined {
  if (e.kind === 'list') return fixed(e.items.length);
  if (e.kind === 'map') return fixed(e.entries.length);
  if (e.kind !== 'literal') return undefined;
  const v = e.value;
  if (typeof v === 'string') return fixed([...v].length);
  if (v instanceof Uint8Array) return fixed(v.length);
  return fixed(1);
}

function literalType(v: unknown): CelType {
  if (v === null) return { k: 'null' };
  switch (typeof v) {
    case 'boolean':
      return BOOL;
    case 'bigint':
      return INT;
    case 'number':
      return { k: 'double' };
    case 'string':
      return STRING;
    default:
      return { k: 'bytes' };
  }
}

function selectType(t: CelType, field: string): CelType {
  if (t.k === 'struct') {
    const f = t.decl.fields?.get(field);
    return f ? celTypeOf(f) : DYN;
  }
  if (t.k === 'map') return t.value;
  return DYN;
}
