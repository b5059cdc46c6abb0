import type { IncomingMessage } from 'node:http';
import type { FaultType, ProxiedRequest, RequestMatch, RequestVerb } from '../fault-proxy-contract.ts';
import type { Identity } from './client-identity.ts';
import { REQUEST_VERBS, requestInfo } from './request-info.ts';
import { matches } from './request-match.ts';

/** A {@link ProxiedRequest} while the proxy still fills in its status and faults. */
export interface LogEntry extends ProxiedRequest {
  status?: number;
  faults: FaultType[];
}

function zeroCounts(): Record<RequestVerb, number> {
  return Object.fromEntries(REQUEST_VERBS.map((v) => [v, 0])) as Record<RequestVerb, number>;
}

/** The requests a fault proxy has seen: a bounded log and counters per verb. */
export class RequestLog {
  readonly #limit: number;
  #log: LogEntry[] = [];
  #counts = zeroCounts();
  #total = 0;
  #nextRequestId = 1;

  /** Keeps the last `limit` requests. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Requests received per verb, since start or {@link RequestLog.reset}. */
  get counts(): Readonly<Record<RequestVerb, number>> {
    return this.#counts;
  }

  /** All requests received, since start or {@link RequestLog.reset}. */
  get total(): number {
    return this.#total;
  }

  /** Logs and counts a new request from `identity`. */
  record(req: IncomingMessage, identity: Identity): LogEntry {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    const info = requestInfo(method, url);
    const entry: LogEntry = {
      id: this.#nextRequestId++,
      method,
      url,
      ...info,
      authentication: identity.authentication === 'rejected' ? 'certificate' : identity.authentication,
      ...(identity.user !== undefined ? { user: identity.user } : {}),
      groups: identity.groups,
      faults: [],
    };
    this.#counts[entry.verb]++;
    this.#total++;
    this.#log.push(entry);
    if (this.#log.length > this.#limit) this.#log.splice(0, this.#log.length - this.#limit);
    return entry;
  }

  /** Copies of the logged requests, optionally only matching ones. */
  requests(match?: RequestMatch): readonly ProxiedRequest[] {
    return this.#log.filter((e) => matches(match, e)).map((e) => ({ ...e, faults: [...e.faults] }));
  }

  /** How many logged requests match. */
  count(match?: RequestMatch): number {
    let n = 0;
    for (const entry of this.#log) if (matches(match, entry)) n++;
    return n;
  }

  /** Zeroes the counters and clears the log. */
  reset(): void {
    this.#counts = zeroCounts();
    this.#total = 0;
    this.#log = [];
  }
}
