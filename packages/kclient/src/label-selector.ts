import { parseLabelSelector } from '@kubeloom/kube';
import type { V1LabelSelector } from '@kubernetes/client-node';

/**
 * A label selector: the string form (`app=web,tier!=db,env in (a,b),!legacy`) or the structured
 * form of `metav1.LabelSelector` (`{ matchLabels, matchExpressions }`). An empty selector
 * (`''` or `{}`) matches everything. Both are parsed by `@kubeloom/kube`'s `parseLabelSelector`,
 * the apiserver's grammar and validation.
 */
export type LabelSelector = string | V1LabelSelector;

/** A compiled label selector: true when a label set matches. */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

const everything: LabelMatcher = () => true;

/**
 * Compiles a label selector into a matcher, with the apiserver's semantics (`!=` and `notin`
 * also match objects without the label; `key` alone means the label exists). `undefined`
 * matches everything.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#labelMatcher}
 *
 * @throws SelectorError (from `@kubeloom/kube`) with the apiserver's message, for a selector
 * the apiserver would refuse.
 */
export function labelMatcher(selector: LabelSelector | undefined): LabelMatcher {
  if (selector === undefined) return everything;
  const parsed = parseLabelSelector(selector);
  return parsed.empty ? everything : (labels) => parsed.matches(labels);
}

/**
 * The string form of a selector, for server-side filtering (`?labelSelector=`); `undefined` for
 * an empty one. A string is validated and returned as is; a `metav1.LabelSelector` is converted
 * to its canonical string.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#labelSelectorString}
 *
 * @throws SelectorError (from `@kubeloom/kube`) when the selector is invalid.
 */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  if (selector === undefined) return undefined;
  const parsed = parseLabelSelector(selector);
  if (parsed.empty) return undefined;
  return typeof selector === 'string' ? selector : parsed.toString();
}
