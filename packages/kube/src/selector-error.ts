/** Which kind of selector a {@link SelectorError} is about. */
export type SelectorKind = 'label' | 'field';

/**
 * A label or field selector the apiserver would refuse. `detail` is the apiserver's own message
 * for it (what a list or watch with this selector answers with a 400 BadRequest); `message` also
 * names the selector.
 */
export class SelectorError extends TypeError {
  /** Whether the label or the field selector is at fault. */
  readonly kind: SelectorKind;
  /** The selector as given (a `metav1.LabelSelector` is shown as JSON). */
  readonly selector: string;
  /** The apiserver's message for this selector. */
  readonly detail: string;

  /** Creates the error. */
  constructor(kind: SelectorKind, selector: string, detail: string) {
    super(`invalid ${kind} selector ${JSON.stringify(selector)}: ${detail}`);
    this.name = 'SelectorError';
    this.kind = kind;
    this.selector = selector;
    this.detail = detail;
  }
}
