import type { Collection } from '../src/core.ts';
import { internalsOf } from '../src/internal/internals.ts';

/** A minimal pod for tests. */
export interface TestPod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status?: { podIP?: string };
}

/** A minimal service for tests. */
export interface TestService {
  metadata: { name: string; namespace: string };
  spec: { selector?: Record<string, string> };
}

/** What a test pod carries beyond its name (default: no labels, no IP). */
export interface TestPodOptions {
  readonly labels?: Record<string, string>;
  /** `status.podIP`. */
  readonly ip?: string;
}

/** A test pod `ns/name`. */
export function pod(ns: string, name: string, { labels = {}, ip = '' }: TestPodOptions = {}): TestPod {
  return { metadata: { name, namespace: ns, labels }, status: { podIP: ip } };
}

export function service(ns: string, name: string, selector: Record<string, string> = {}): TestService {
  return { metadata: { name, namespace: ns }, spec: { selector } };
}

/** Handlers registered on a collection. */
export function handlerCount(c: Collection<unknown>): number {
  return internalsOf(c).handlerCount();
}

/** Timers currently alive in this process. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').length;
}
