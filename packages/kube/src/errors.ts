/** One field-level cause of an `Invalid` error (`status.details.causes[]`). */
export interface StatusCause {
  /** A machine-readable reason, e.g. `FieldValueRequired`. */
  readonly reason?: string;
  /** A human-readable message. */
  readonly message?: string;
  /** The field path, e.g. `spec.replicas`. */
  readonly field?: string;
}

/** A Kubernetes `Status` object, as returned in error bodies and watch ERROR events. */
export interface Status {
  /** Always `Status`. */
  readonly kind?: string;
  /** Always `v1`. */
  readonly apiVersion?: string;
  /** `Success` or `Failure`. */
  readonly status?: string;
  /** A human-readable description. */
  readonly message?: string;
  /** A machine-readable reason, e.g. `NotFound`, `Conflict`, `Expired`. */
  readonly reason?: string;
  /** The HTTP status code. */
  readonly code?: number;
  /** Extra detail about the object and field causes. */
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly uid?: string;
    readonly causes?: readonly StatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

/** Error classification, mirroring apimachinery's `StatusReason` values plus transport failures. */
export type ApiErrorReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerTimeout'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Unknown';

/**
 * An error returned by the Kubernetes API (or an equivalent failure from the fake cluster).
 * Use the predicates ({@link isNotFound}, {@link isConflict}, …) rather than `instanceof` when the
 * error may come from client-node: they also recognize client-node's `ApiException`.
 */
export class ApiError extends Error {
  /** The HTTP status code (0 for a transport failure). */
  readonly code: number;
  /** The classified reason. */
  readonly reason: ApiErrorReason;
  /** The Status object, when the server sent one. */
  readonly status: Status | undefined;
  /** Field causes for `Invalid` errors (empty otherwise). */
  readonly causes: readonly StatusCause[];
  /** For `TooManyRequests` and server timeouts: how long the server asked us to wait, in seconds. */
  readonly retryAfterSeconds: number | undefined;

  /** Creates an error; prefer {@link apiErrorFromStatus}. */
  constructor(
    message: string,
    init: {
      code: number;
      reason: ApiErrorReason;
      status?: Status;
      retryAfterSeconds?: number;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = `${init.reason}Error`;
    this.code = init.code;
    this.reason = init.reason;
    this.status = init.status;
    this.causes = init.status?.details?.causes ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? init.status?.details?.retryAfterSeconds;
  }
}

/** `404 NotFound`. */
export class NotFoundError extends ApiError {}
/** `409 AlreadyExists` on create. */
export class AlreadyExistsError extends ApiError {}
/** `409 Conflict`: a stale resourceVersion, or a server-side apply field conflict. */
export class ConflictError extends ApiError {}
/** `410 Gone` / `Expired`: the requested resourceVersion or continue token is too old. */
export class GoneError extends ApiError {}
/** `403 Forbidden`. */
export class ForbiddenError extends ApiError {}
/** `401 Unauthorized`. */
export class UnauthorizedError extends ApiError {}
/** `422 Invalid`, with the field causes in {@link ApiError.causes}. */
export class InvalidError extends ApiError {}
/** `429 TooManyRequests`, with {@link ApiError.retryAfterSeconds}. */
export class TooManyRequestsError extends ApiError {}
/** `504 Timeout`, `ServerTimeout`, or a client-side timeout. */
export class TimeoutError extends ApiError {}

/** Where a kubeconfig problem is: each field is set when known. */
export interface KubeConfigErrorLocation {
  /** The kubeconfig file, when the configuration came from a file. */
  readonly file?: string | undefined;
  /** The context in use. */
  readonly context?: string | undefined;
  /** The cluster entry, for cluster fields (`server`, `certificate-authority-data`, …). */
  readonly cluster?: string | undefined;
  /** The user entry, for user fields (`client-certificate-data`, `client-key`, …). */
  readonly user?: string | undefined;
  /** The kubeconfig field at fault, as spelled in YAML, e.g. `client-key-data`. */
  readonly field?: string | undefined;
  /** Every place searched for a configuration, when none was found. */
  readonly searched?: readonly string[] | undefined;
}

/**
 * Thrown by `createKubeClient` and `loadKubeConfig` when no usable cluster configuration can be
 * loaded: no kubeconfig anywhere, a missing file, an unknown context, a context naming a missing
 * cluster or user, or bad certificate data. The message names the source (file, context, cluster
 * or user, field) and says what to fix; the same facts are in the fields.
 */
export class KubeConfigError extends Error {
  /** The kubeconfig file, when the configuration came from a file. */
  readonly file: string | undefined;
  /** The context in use. */
  readonly context: string | undefined;
  /** The cluster entry at fault. */
  readonly cluster: string | undefined;
  /** The user entry at fault. */
  readonly user: string | undefined;
  /** The kubeconfig field at fault, as spelled in YAML. */
  readonly field: string | undefined;
  /** Every place searched for a configuration (empty unless none was found). */
  readonly searched: readonly string[];

  /** Creates an error; `init` says where the problem is. */
  constructor(message: string, init: KubeConfigErrorLocation & { cause?: unknown } = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'KubeConfigError';
    this.file = init.file;
    this.context = init.context;
    this.cluster = init.cluster;
    this.user = init.user;
    this.field = init.field;
    this.searched = init.searched ?? [];
  }
}

const reasonByCode: Record<number, ApiErrorReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const knownReasons = new Set<string>([
  ...Object.values(reasonByCode),
  'AlreadyExists',
  'Expired',
  'ServerTimeout',
]);

function classFor(reason: ApiErrorReason): typeof ApiError {
  switch (reason) {
    case 'NotFound':
      return NotFoundError;
    case 'AlreadyExists':
      return AlreadyExistsError;
    case 'Conflict':
      return ConflictError;
    case 'Gone':
    case 'Expired':
      return GoneError;
    case 'Forbidden':
      return ForbiddenError;
    case 'Unauthorized':
      return UnauthorizedError;
    case 'Invalid':
      return InvalidError;
    case 'TooManyRequests':
      return TooManyRequestsError;
    case 'Timeout':
    case 'ServerTimeout':
      return TimeoutError;
    default:
      return ApiError;
  }
}

/** Options for {@link apiErrorFromStatus}. */
export interface ApiErrorContext {
  /** What was being done, prefixed to the message, e.g. `get configmaps ns/name`. */
  readonly context?: string | undefined;
  /** The response's `Retry-After` header (seconds); wins over the Status body's `retryAfterSeconds`. */
  readonly retryAfterHeader?: string | null | undefined;
}

/** Builds the typed error for an HTTP status code and (optional) Status body. */
export function apiErrorFromStatus(
  code: number,
  status: Status | undefined,
  opts: ApiErrorContext = {},
): ApiError {
  const { context, retryAfterHeader } = opts;
  const statusReason =
    status?.reason && knownReasons.has(status.reason) ? (status.reason as ApiErrorReason) : undefined;
  const reason: ApiErrorReason = statusReason ?? reasonByCode[code] ?? 'Unknown';
  const retryHeader = retryAfterHeader ? Number.parseInt(retryAfterHeader, 10) : Number.NaN;
  const retryAfterSeconds = Number.isFinite(retryHeader) ? retryHeader : status?.details?.retryAfterSeconds;
  let message = status?.message ?? `HTTP ${code}`;
  const causes = status?.details?.causes ?? [];
  if (reason === 'Invalid' && causes.length > 0 && !status?.message) {
    message = causes.map((c) => `${c.field ?? ''}: ${c.message ?? c.reason ?? ''}`).join('; ');
  }
  const Cls = classFor(reason);
  return new Cls(context ? `${context}: ${message}` : message, {
    code,
    reason,
    ...(status ? { status } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

interface ClientNodeApiException {
  code: number;
  body: unknown;
  headers?: Record<string, string>;
}

function isClientNodeException(err: unknown): err is ClientNodeApiException {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'number' &&
    'body' in err &&
    !(err instanceof ApiError)
  );
}

/**
 * Converts anything thrown by kubeloom, client-node (`ApiException`) or a Status object into an
 * {@link ApiError}; returns `undefined` for errors that did not come from the API.
 */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isClientNodeException(err)) {
    let body = err.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        body = { message: body };
      }
    }
    const status = typeof body === 'object' && body !== null ? (body as Status) : undefined;
    const retry = err.headers?.['retry-after'] ?? err.headers?.['Retry-After'];
    return apiErrorFromStatus(err.code, status, { retryAfterHeader: retry });
  }
  if (typeof err === 'object' && err !== null && (err as Status).kind === 'Status') {
    const s = err as Status;
    return apiErrorFromStatus(s.code ?? 0, s);
  }
  return undefined;
}

function hasReason(err: unknown, ...reasons: ApiErrorReason[]): boolean {
  const e = toApiError(err);
  return e !== undefined && reasons.includes(e.reason);
}

/** True for a 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  return hasReason(err, 'NotFound');
}
/** True for a 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): boolean {
  return hasReason(err, 'AlreadyExists');
}
/** True for a 409 Conflict (stale resourceVersion or apply conflict). */
export function isConflict(err: unknown): boolean {
  return hasReason(err, 'Conflict');
}
/** True for 410 Gone / Expired: relist. */
export function isGone(err: unknown): boolean {
  return hasReason(err, 'Gone', 'Expired');
}
/** True for 403 Forbidden. */
export function isForbidden(err: unknown): boolean {
  return hasReason(err, 'Forbidden');
}
/** True for 401 Unauthorized. */
export function isUnauthorized(err: unknown): boolean {
  return hasReason(err, 'Unauthorized');
}
/** True for 422 Invalid. */
export function isInvalid(err: unknown): boolean {
  return hasReason(err, 'Invalid');
}
/** True for 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): boolean {
  return hasReason(err, 'TooManyRequests');
}
/** True for a server or client timeout. */
export function isTimeout(err: unknown): boolean {
  return hasReason(err, 'Timeout', 'ServerTimeout');
}

/** Returns `undefined` for a NotFound error and rethrows anything else: `await ignoreNotFound(api.delete(...))`. */
export async function ignoreNotFound<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
