import type { Status } from '../../errors.ts';
import type { ResourceDescriptor } from '../../resource.ts';
import type {
  FailureOptions,
  FakeRequest,
  FakeVerb,
  RequestObserver,
  ResourceMatcher,
} from '../fake-cluster-options.ts';
import { clone } from './json.ts';
import { sleep } from './sleep.ts';
import * as S from './status.ts';

interface Failure {
  readonly verbs: ReadonlySet<FakeVerb>;
  readonly resource: ResourceMatcher | undefined;
  remaining: number;
  readonly status: Status;
}

interface Delay {
  readonly verbs: ReadonlySet<FakeVerb> | undefined;
  readonly resource: ResourceMatcher | undefined;
  readonly ms: number;
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function matchesResource(m: ResourceMatcher | undefined, r: ResourceDescriptor | undefined): boolean {
  return m === undefined || (r !== undefined && r.group === m.group && r.plural === m.plural);
}

/**
 * What every request to a fake cluster passes through before it is served: request counts,
 * observers, injected delays and injected failures.
 */
export class FaultInjection {
  readonly #failures: Failure[] = [];
  readonly #delays: Delay[] = [];
  readonly #observers = new Set<RequestObserver>();
  readonly #counts = new Map<string, number>();

  /**
   * Fails the next `times` requests of the given verbs (optionally for one resource) with a
   * Status built from `o`. Returns a function that cancels what is left of the injection.
   */
  fail(verbs: FakeVerb | readonly FakeVerb[], times: number, o: FailureOptions): () => void {
    const code = o.status?.code ?? o.code ?? 500;
    const reason = o.reason ?? REASON_BY_CODE[code] ?? 'InternalError';
    const status =
      o.status ??
      S.failure(code, reason, {
        message: o.message ?? `injected failure (${reason})`,
        details: o.retryAfterSeconds !== undefined ? { retryAfterSeconds: o.retryAfterSeconds } : undefined,
      });
    const f: Failure = {
      verbs: new Set(typeof verbs === 'string' ? [verbs] : verbs),
      resource: o.resource,
      remaining: times,
      status,
    };
    this.#failures.push(f);
    return () => {
      const i = this.#failures.indexOf(f);
      if (i >= 0) this.#failures.splice(i, 1);
    };
  }

  /** Removes every failure injection and delay. */
  clear(): void {
    this.#failures.length = 0;
    this.#delays.length = 0;
  }

  /** Delays every request of the given verbs (default: all) by `ms` before it is served. Returns a function that removes the delay. */
  delay(ms: number, options: { verbs?: readonly FakeVerb[]; resource?: ResourceMatcher } = {}): () => void {
    const d: Delay = {
      ms,
      verbs: options.verbs ? new Set(options.verbs) : undefined,
      resource: options.resource,
    };
    this.#delays.push(d);
    return () => {
      const i = this.#delays.indexOf(d);
      if (i >= 0) this.#delays.splice(i, 1);
    };
  }

  /** Observes every request (before failures and delays apply). Returns an unsubscribe function. */
  onRequest(observer: RequestObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** How many requests of a verb (optionally for one resource) were made so far. */
  requestCount(verb: FakeVerb, resource?: ResourceMatcher): number {
    return this.#counts.get(resource ? `${verb} ${resource.group}/${resource.plural}` : verb) ?? 0;
  }

  /** Counts and observes a request, then applies the delays and failures injected for it. */
  async enter(req: FakeRequest, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    this.#counts.set(req.verb, (this.#counts.get(req.verb) ?? 0) + 1);
    if (req.resource) {
      const k = `${req.verb} ${req.resource.group}/${req.resource.plural}`;
      this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
    }
    for (const o of [...this.#observers]) o(req);
    for (const d of [...this.#delays]) {
      if ((!d.verbs || d.verbs.has(req.verb)) && matchesResource(d.resource, req.resource) && d.ms > 0) {
        await sleep(d.ms, signal);
      }
    }
    for (const f of this.#failures) {
      if (f.remaining <= 0 || !f.verbs.has(req.verb) || !matchesResource(f.resource, req.resource)) continue;
      f.remaining--;
      if (f.remaining <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
      throw S.toError(clone(f.status));
    }
  }
}
