import { type ParsedLabelSelector, parseLabelSelector, SelectorError } from '@kubeloom/kube';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { getLabelSelector, type LabelSelectorer, type Labels, LabelsUnavailableError } from '../labels.ts';

/**
 * An object's label selector as krt's selector filters evaluate it: the `key=value` pairs it
 * requires (what the automatic index files it under), and, when it also has `matchExpressions`,
 * the whole selector parsed by `@kubeloom/kube`'s `parseLabelSelector` (the apiserver's grammar
 * and semantics).
 */
export interface ObjectSelector {
  /** Pairs every selected label set has (`matchLabels`, or the plain map). */
  readonly pairs: Labels;
  /** The full selector, when the pairs alone do not decide (a `metav1.LabelSelector` with expressions). */
  readonly expressions: ParsedLabelSelector | undefined;
}

const EMPTY: Labels = Object.freeze({});

/** Parsed selectors by their (frozen, shared) `spec.selector` object, so each is parsed once. */
const parsed = new WeakMap<object, ObjectSelector>();

function withExpressions(sel: V1LabelSelector): ObjectSelector {
  let out = parsed.get(sel);
  if (out === undefined) {
    let full: ParsedLabelSelector;
    try {
      full = parseLabelSelector(sel);
    } catch (err) {
      if (err instanceof SelectorError) {
        throw new LabelsUnavailableError(`spec.selector is not a valid label selector: ${err.detail}`);
      }
      throw err;
    }
    out = { pairs: sel.matchLabels ?? EMPTY, expressions: full };
    parsed.set(sel, out);
  }
  return out;
}

/**
 * The selector of an object: `getLabelSelector()`, else `spec.selector` (a plain map, or a
 * `metav1.LabelSelector` with `matchLabels` and `matchExpressions`).
 *
 * @throws LabelsUnavailableError when the object has no selector or an invalid one.
 */
export function objectSelector(obj: unknown): ObjectSelector {
  if (
    obj !== null &&
    typeof obj === 'object' &&
    typeof (obj as Partial<LabelSelectorer>).getLabelSelector !== 'function'
  ) {
    const sel = (obj as { spec?: { selector?: unknown } }).spec?.selector;
    if (sel !== null && typeof sel === 'object') {
      const exprs = (sel as V1LabelSelector).matchExpressions;
      if (Array.isArray(exprs) && exprs.length > 0) return withExpressions(sel as V1LabelSelector);
    }
  }
  return { pairs: getLabelSelector(obj), expressions: undefined };
}

/**
 * True when the object's selector selects `labels`: every pair matches and, with expressions,
 * the full selector matches. `nonEmpty` refuses an empty selector (Istio's `SelectsNonEmpty`).
 */
export function selectorSelects(sel: ObjectSelector, labels: Labels, nonEmpty: boolean): boolean {
  if (sel.expressions !== undefined) return sel.expressions.matches(labels);
  let any = false;
  for (const k in sel.pairs) {
    any = true;
    if (labels[k] !== sel.pairs[k]) return false;
  }
  return any || !nonEmpty;
}
