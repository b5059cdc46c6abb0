import type {
  Blackhole,
  FaultAction,
  FaultRule,
  FaultRuleSpec,
  ProxiedRequest,
  RequestMatch,
  StallHandle,
} from '../fault-proxy-contract.ts';
import type { Exchange, ExchangeFault } from './exchange.ts';
import type { LogEntry } from './request-log.ts';
import { matches, matchOf } from './request-match.ts';

/**
 * A rule installed on a fault proxy: its match, count and action, and the exchanges it holds
 * (stalls) or slows (delays). It is also the {@link StallHandle} and {@link Blackhole} returned
 * for such rules.
 */
export class Rule implements FaultRule, StallHandle, Blackhole, ExchangeFault {
  readonly id: number;
  readonly action: FaultAction;
  /** The requests it applies to. */
  readonly match: RequestMatch;
  /** A refusing black hole for everyone: new TCP connections are reset before the TLS handshake. */
  readonly refuseConnections: boolean;
  hits = 0;
  #remaining: number | undefined;
  #removed = false;
  readonly #inFlightOnly: boolean;
  readonly #exchanges = new Set<Exchange>();
  readonly #onRemove: (rule: Rule) => void;

  /**
   * Validates `spec`; `onRemove` is called when the rule is removed or, for `respond` and `cut`,
   * when its count is used up.
   */
  constructor(
    id: number,
    spec: FaultRuleSpec,
    { onRemove, refuseConnections = false }: { onRemove: (rule: Rule) => void; refuseConnections?: boolean },
  ) {
    if (spec.count !== undefined && (!Number.isInteger(spec.count) || spec.count < 1)) {
      throw new RangeError(`fault rule count must be a positive integer, got ${spec.count}`);
    }
    if (spec.action.type === 'delay' && !(spec.action.ms >= 0)) {
      throw new RangeError(`delay must be a non-negative number of milliseconds, got ${spec.action.ms}`);
    }
    if (
      spec.inFlightOnly &&
      (spec.count !== undefined || spec.action.type === 'respond' || spec.action.type === 'cut')
    ) {
      throw new TypeError(
        'inFlightOnly applies to stall and delay rules without a count (cut() cuts requests in flight)',
      );
    }
    if (spec.action.type === 'respond' && !(spec.action.status >= 100 && spec.action.status <= 599)) {
      throw new RangeError(`respond needs an HTTP status 100–599, got ${spec.action.status}`);
    }
    this.id = id;
    this.action = spec.action;
    this.match = matchOf(spec);
    this.#remaining = spec.count;
    this.#inFlightOnly = spec.inFlightOnly === true;
    this.#onRemove = onRemove;
    this.refuseConnections = refuseConnections;
  }

  get remaining(): number | undefined {
    return this.#remaining;
  }

  get active(): boolean {
    return !this.#removed && (this.#remaining === undefined || this.#remaining > 0 || !this.terminal);
  }

  /** `respond` and `cut` rules decide the request's fate; only the first matching one applies. */
  get terminal(): boolean {
    return this.action.type === 'respond' || this.action.type === 'cut';
  }

  /** Whether the rule has a count (and so never takes hold of requests in flight). */
  get counted(): boolean {
    return this.#remaining !== undefined;
  }

  /** Whether a new request should be caught by this rule. */
  catches(request: ProxiedRequest): boolean {
    return (
      !this.#removed &&
      !this.#inFlightOnly &&
      (this.#remaining === undefined || this.#remaining > 0) &&
      matches(this.match, request)
    );
  }

  /** Applies the rule to a request: counts it and attaches stalls and delays. */
  take(exchange: Exchange, entry: LogEntry): void {
    this.hits++;
    if (this.#remaining !== undefined) this.#remaining--;
    entry.faults.push(this.action.type);
    this.attach(exchange);
    if (this.terminal && this.#remaining === 0) this.#onRemove(this);
  }

  /** Attaches a stall or delay to `exchange` (nothing for other actions). */
  attach(exchange: Exchange): void {
    if (this.action.type === 'stall') exchange.attachStall(this);
    else if (this.action.type === 'delay') exchange.attachDelay(this, this.action.ms);
    else return;
    this.#exchanges.add(exchange);
  }

  forget(exchange: Exchange): void {
    this.#exchanges.delete(exchange);
  }

  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    this.#onRemove(this);
    const held = [...this.#exchanges];
    this.#exchanges.clear();
    for (const exchange of held) exchange.detach(this);
  }

  resume(): void {
    this.remove();
  }

  heal(): void {
    this.remove();
  }

  cut(): number {
    const held = [...this.#exchanges].filter((e) => !e.closed);
    for (const exchange of held) exchange.cut();
    this.remove();
    return held.length;
  }
}
