/**
 * The operator's own metrics, read from the caches at scrape time (no bookkeeping in the
 * reconcile): addresses allocated and free per pool, and policies by readiness.
 *
 * @module
 */

import type { Registry } from 'prom-client';
import * as prom from 'prom-client';
import type { OperatorClients } from '../controller/clients.ts';
import { findCondition } from '../domain/conditions.ts';

/** Registers the gauges on `registry`. */
export function registerOperatorMetrics(registry: Registry, clients: OperatorClients): void {
  new prom.Gauge({
    name: 'egress_pool_allocated_addresses',
    help: 'Addresses allocated in each IPAMPool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of clients.pools.list())
        this.set({ pool: p.metadata?.name ?? '' }, p.status?.allocated ?? 0);
    },
  });
  new prom.Gauge({
    name: 'egress_pool_free_addresses',
    help: 'Addresses still free in each IPAMPool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of clients.pools.list()) this.set({ pool: p.metadata?.name ?? '' }, p.status?.free ?? 0);
    },
  });
  new prom.Gauge({
    name: 'egress_policies',
    help: 'EgressGatewayPolicies by their Ready condition.',
    labelNames: ['ready'],
    registers: [registry],
    collect() {
      const counts = { True: 0, False: 0, Unknown: 0 };
      for (const p of clients.policies.list()) {
        const status = findCondition(p.status?.conditions, 'Ready')?.status ?? 'Unknown';
        counts[status] += 1;
      }
      for (const [ready, n] of Object.entries(counts)) this.set({ ready }, n);
    },
  });
}
