import { type ParsedLabelSelector, parseLabelSelector, SelectorError } from '@kubeloom/kube';
import type { V1LabelSelector } from '@kubernetes/client-node';
import {
  getLabelSelector,
  isSubset,
  type LabelSelectorer,
  type Labels,
  LabelsUnavailableError,
  selectsNonEmpty,
} from '../labels.ts';

/**
 * A `metav1.LabelSelector` with `matchExpressions`, parsed by `@kubeloom/kube`'s
 * `parseLabelSelector` (the apiserver's grammar and semantics), and the `matchLabels` pairs every
 * label set it selects has (what the automatic index files it under).
 */
export interface ExpressionSelector {
  /** `matchLabels` (possibly empty). */
  readonly pairs: Labels;
  /** The whole selector. */
  readonly selector: ParsedLabelSelector;
}

const EMPTY: Labels = Object.freeze({});

/** Parsed selectors by their (frozen, shared) `spec.selector` object, so each is parsed once. */
const parsed = new WeakMap<object, ExpressionSelector>();

/**
 * The object's selector when it is a `metav1.LabelSelector` with `matchExpressions` (and the
 * object has no `getLabelSelector()`); `undefined` when a label map says it all (then
 * `getLabelSelector` reads it).
 *
 * @throws LabelsUnavailableError when the selector is invalid, with the apiserver's message.
 */
export function expressionSelector(obj: unknown): ExpressionSelector | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  if (typeof (obj as Partial<LabelSelectorer>).getLabelSelector === 'function') return undefined;
  const sel = (obj as { spec?: { selector?: unknown } }).spec?.selector;
  if (sel === null || typeof sel !== 'object') return undefined;
  const exprs = (sel as V1LabelSelector).matchExpressions;
  if (!Array.isArray(exprs) || exprs.length === 0) return undefined;
  let out = parsed.get(sel);
  if (out === undefined) {
    let selector: ParsedLabelSelector;
    try {
      selector = parseLabelSelector(sel as V1LabelSelector);
    } catch (err) {
      if (err instanceof SelectorError) {
        throw new LabelsUnavailableError(`spec.selector is not a valid label selector: ${err.detail}`);
      }
      throw err;
    }
    out = { pairs: (sel as V1LabelSelector).matchLabels ?? EMPTY, selector };
    parsed.set(sel, out);
  }
  return out;
}

/**
 * True when the object's selector selects `labels`: the whole selector when it has expressions,
 * else its label map (Istio's `SubsetOf`; `nonEmpty` refuses an empty one, `SelectsNonEmpty`).
 *
 * @throws LabelsUnavailableError when the object has no selector or an invalid one.
 */
export function objectSelects(obj: unknown, labels: Labels, nonEmpty: boolean): boolean {
  const exprs = expressionSelector(obj);
  if (exprs !== undefined) return exprs.selector.matches(labels);
  const sel = getLabelSelector(obj);
  return nonEmpty ? selectsNonEmpty(sel, labels) : isSubset(sel, labels);
}
