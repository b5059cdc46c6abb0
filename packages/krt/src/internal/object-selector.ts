import { type ParsedLabelSelector, parseLabelSelector, SelectorError } from '@kubeloom/kube';
import type { V1LabelSelector } from '@kubernetes/client-node';
import {
  isSubset,
  type Labels,
  LabelsUnavailableError,
  labelSelectorMap,
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
 * The parsed selector of an object whose `spec.selector` has `matchExpressions` (one for which
 * `labelSelectorMap` answers `null`).
 *
 * @throws LabelsUnavailableError when the selector is invalid, with the apiserver's message.
 */
export function expressionSelector(obj: unknown): ExpressionSelector {
  const sel = (obj as { spec: { selector: V1LabelSelector } }).spec.selector;
  let out = parsed.get(sel);
  if (out === undefined) {
    let selector: ParsedLabelSelector;
    try {
      selector = parseLabelSelector(sel);
    } catch (err) {
      if (err instanceof SelectorError) {
        throw new LabelsUnavailableError(`spec.selector is not a valid label selector: ${err.detail}`);
      }
      throw err;
    }
    out = { pairs: sel.matchLabels ?? EMPTY, selector };
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
  const sel = labelSelectorMap(obj);
  if (sel === null) return expressionSelector(obj).selector.matches(labels);
  return nonEmpty ? selectsNonEmpty(sel, labels) : isSubset(sel, labels);
}
