/**
 * `metav1.Condition` hygiene (invariant I12): `lastTransitionTime` moves only when a condition's
 * status flips, reasons match the CRD's pattern, messages are one line. Pure.
 *
 * @module
 */

/** A `metav1.Condition` as it is on the wire (times are RFC 3339 strings). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** A condition as a processor decides it; the time and generation are filled in by {@link setCondition}. */
export interface ConditionInput {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** The pattern the apiserver enforces on `reason`. */
export const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** A message as one line of at most 32768 characters, as the Condition schema allows. */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, '; ').slice(0, 32768);
}

/**
 * `conditions` with `input` set: an existing condition of the same type keeps its
 * `lastTransitionTime` unless the status changes; order is preserved, new types are appended.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  options: { readonly observedGeneration?: number; readonly now: Date },
): Condition[] {
  if (!REASON_PATTERN.test(input.reason))
    throw new Error(`condition reason ${JSON.stringify(input.reason)} does not match ${REASON_PATTERN}`);
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === input.status ? previous.lastTransitionTime : rfc3339(options.now);
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: oneLine(input.message),
    lastTransitionTime,
    ...(options.observedGeneration === undefined ? {} : { observedGeneration: options.observedGeneration }),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

/** The condition of `type`, if any. */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** A time as the apiserver serializes `metav1.Time`: RFC 3339 with seconds precision. */
export function rfc3339(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
