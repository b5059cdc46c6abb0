/** Labels as a plain map. */
export type Labels = Readonly<Record<string, string>>;

/** An object that supplies its labels (checked before `metadata.labels`). */
export interface Labeler {
  /** The object's labels. */
  getLabels(): Labels | undefined;
}

/** An object that supplies its label selector (checked before `spec.selector`). */
export interface LabelSelectorer {
  /** The object's label selector; empty or undefined selects everything. */
  getLabelSelector(): Labels | undefined;
}

/** Thrown when a label or selector filter meets an object that has none. */
export class LabelsUnavailableError extends TypeError {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'LabelsUnavailableError';
  }
}

/**
 * The labels of an object: `getLabels()`, then `metadata.labels` of anything with `metadata`,
 * then a `labels` map.
 *
 * @throws LabelsUnavailableError otherwise.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#getLabels}
 */
export function getLabels(obj: unknown): Labels {
  if (obj !== null && typeof obj === 'object') {
    const fn = (obj as Partial<Labeler>).getLabels;
    if (typeof fn === 'function') return fn.call(obj) ?? EMPTY;
    const meta = (obj as { metadata?: { labels?: Labels } }).metadata;
    if (meta !== undefined && meta !== null) return meta.labels ?? EMPTY;
    const labels = (obj as { labels?: unknown }).labels;
    if (labels !== null && typeof labels === 'object') return labels as Labels;
  }
  throw new LabelsUnavailableError(
    'object has no labels: implement getLabels(), use Kubernetes objects, or augment the collection (options.augment)',
  );
}

/**
 * The label selector of an object as a label map: `getLabelSelector()`, then `spec.selector` when
 * it is a plain map (Services), then `spec.selector.matchLabels` of a LabelSelector without
 * expressions. (The selector filters also evaluate `matchExpressions`, with `@kubeloom/kube`'s
 * `parseLabelSelector`; a map cannot express them.)
 *
 * @throws LabelsUnavailableError otherwise.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#getLabelSelector}
 */
export function getLabelSelector(obj: unknown): Labels {
  const sel = labelSelectorMap(obj);
  if (sel === null) {
    throw new LabelsUnavailableError(
      'spec.selector has matchExpressions, which a label map cannot express (selector filters evaluate them themselves)',
    );
  }
  return sel;
}

/**
 * {@link getLabelSelector}, but `null` for a `spec.selector` with `matchExpressions` (krt's
 * selector filters then evaluate it whole; internal, not exported from the package).
 *
 * @throws LabelsUnavailableError when the object has no selector.
 */
export function labelSelectorMap(obj: unknown): Labels | null {
  if (obj !== null && typeof obj === 'object') {
    const fn = (obj as Partial<LabelSelectorer>).getLabelSelector;
    if (typeof fn === 'function') return fn.call(obj) ?? EMPTY;
    const spec = (obj as { spec?: { selector?: unknown } }).spec;
    if (spec !== undefined && spec !== null) {
      const sel = spec.selector;
      if (sel === undefined || sel === null) return EMPTY;
      if (typeof sel === 'object') {
        const s = sel as { matchLabels?: Labels; matchExpressions?: unknown[] };
        if ('matchLabels' in s || 'matchExpressions' in s) {
          if (s.matchExpressions && s.matchExpressions.length > 0) return null;
          return s.matchLabels ?? EMPTY;
        }
        return sel as Labels;
      }
    }
  }
  throw new LabelsUnavailableError(
    'object has no label selector: implement getLabelSelector(), or augment the collection (options.augment)',
  );
}

/**
 * True when every label of `subset` is in `labels` with the same value (an empty subset is a subset of anything).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#isSubset}
 */
export function isSubset(subset: Labels | undefined, labels: Labels | undefined): boolean {
  if (subset === undefined) return true;
  for (const k in subset) {
    if (labels === undefined || labels[k] !== subset[k]) return false;
  }
  return true;
}

/**
 * True when `selector` is non-empty and selects `labels` (Istio's `labels.Instance.Match`).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#selectsNonEmpty}
 */
export function selectsNonEmpty(selector: Labels | undefined, labels: Labels | undefined): boolean {
  if (selector === undefined) return false;
  let any = false;
  for (const k in selector) {
    any = true;
    if (labels === undefined || labels[k] !== selector[k]) return false;
  }
  return any;
}

const EMPTY: Labels = Object.freeze({});
