import { type ApiError, apiErrorFromStatus, type Status, type StatusCause } from '../../errors.ts';

/** What an error is about: the resource (plural) and group, as in `details`. */
export interface Qualified {
  readonly plural: string;
  readonly group: string;
  readonly kind: string;
}

/** `configmaps` or `deployments.apps`, as the apiserver names a resource in messages. */
export function qualifiedResource(r: Qualified): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

/** The message and optional details and list metadata of a {@link failure}. */
export interface FailureBody {
  readonly message: string;
  readonly details?: Status['details'] | undefined;
  /** Status `metadata`, e.g. the `continue` token of an expired list. */
  readonly metadata?: Record<string, unknown> | undefined;
}

/** A failure Status, shaped like the apiserver's (`kind`, `apiVersion`, `metadata`, …). */
export function failure(
  code: number,
  reason: string,
  { message, details, metadata = {} }: FailureBody,
): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: { ...metadata },
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  } as Status;
}

/** The typed error for a Status. */
export function toError(status: Status): ApiError {
  return apiErrorFromStatus(status.code ?? 500, status);
}

function details(r: Qualified, name: string): NonNullable<Status['details']> {
  return r.group ? { name, group: r.group, kind: r.plural } : { name, kind: r.plural };
}

/** `404 NotFound`: `configmaps "x" not found`. */
export function notFound(r: Qualified, name: string): Status {
  return failure(404, 'NotFound', {
    message: `${qualifiedResource(r)} "${name}" not found`,
    details: details(r, name),
  });
}

/** `409 AlreadyExists`: `configmaps "x" already exists`. */
export function alreadyExists(r: Qualified, name: string): Status {
  return failure(409, 'AlreadyExists', {
    message: `${qualifiedResource(r)} "${name}" already exists`,
    details: details(r, name),
  });
}

/** `409 Conflict` on a stale resourceVersion. */
export function conflict(r: Qualified, name: string): Status {
  return failure(409, 'Conflict', {
    message: `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    details: details(r, name),
  });
}

/** `409 Conflict` of a delete precondition; the apiserver names the kind here, not the resource. */
export function preconditionFailed(
  r: Qualified,
  name: string,
  {
    what,
    want,
    have,
  }: { readonly what: 'UID' | 'ResourceVersion'; readonly want: string; readonly have: string },
): Status {
  const tail =
    what === 'UID'
      ? 'The object might have been deleted and then recreated'
      : 'The object might have been modified';
  return failure(409, 'Conflict', {
    message: `Operation cannot be fulfilled on ${r.kind} "${name}": the ${what} in the precondition (${want}) does not match the ${what} in record (${have}). ${tail}`,
    details: { name, ...(r.group ? { group: r.group } : {}), kind: r.kind },
  });
}

/** `422 Invalid` with field causes; `who` names the object as the apiserver does (kind, or resource.group for custom resources). */
export function invalid(
  who: { readonly name: string; readonly group: string; readonly kind: string },
  causes: readonly StatusCause[],
  name: string,
): Status {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const summary = causes.length > 1 ? `[${text}]` : text;
  return failure(422, 'Invalid', {
    message: `${who.name} "${name}" is invalid: ${summary}`,
    details: {
      ...(name ? { name } : {}),
      ...(who.group ? { group: who.group } : {}),
      kind: who.kind,
      causes,
    },
  });
}

/** `400 BadRequest`. */
export function badRequest(message: string): Status {
  return failure(400, 'BadRequest', { message });
}

/** `410 Expired`. */
export function expired(message: string, extra: Record<string, unknown> = {}): Status {
  return failure(410, 'Expired', { message, metadata: extra });
}

/** `415 UnsupportedMediaType` for a strategic merge patch on a custom resource. */
export function unsupportedPatch(): Status {
  return failure(415, 'UnsupportedMediaType', {
    message:
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  });
}

/** `404` for a path the server does not serve. */
export function pathNotFound(): Status {
  return failure(404, 'NotFound', {
    message: 'the server could not find the requested resource',
    details: {},
  });
}

/** What the apiserver's mux answers for a path under no served group/version: plain text, no Status. */
export function muxNotFound(): ApiError {
  return apiErrorFromStatus(404, { message: '404 page not found\n' });
}

/** `405 MethodNotAllowed`. */
export function methodNotAllowed(): Status {
  return failure(405, 'MethodNotAllowed', {
    message: 'the server does not allow this method on the requested resource',
  });
}

/** `422 Invalid` for a JSON patch that does not apply (the apiserver gives no detail). */
export function patchRejected(): Status {
  return failure(422, 'Invalid', {
    message: 'the server rejected our request due to an error in our request',
    details: {},
  });
}

/** A success Status of a delete. */
export function deleted(r: Qualified, name: string, uid: string | undefined): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { ...details(r, name), ...(uid ? { uid } : {}) },
  } as Status;
}
