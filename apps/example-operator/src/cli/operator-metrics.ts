/**
 * The operator's own metrics, read at scrape time (no bookkeeping in the reconcile): addresses
 * allocated and free per pool from the controller's pool usage (the derived krt collection, or
 * computed from the caches), policies by readiness from the policy cache, and the objects each
 * cache holds (with `--shard-ring`, this replica's share of the policies and gateways; pools whole).
 *
 * @module
 */

import type { Registry } from 'prom-client';
import * as prom from 'prom-client';
import type { EgressController } from '../controller/egress-controller.ts';
import { findCondition } from '../domain/conditions.ts';

/** Registers the gauges on `registry`. */
export function registerOperatorMetrics(
  registry: Registry,
  controller: Pick<EgressController, 'clients' | 'poolUsage'>,
): void {
  new prom.Gauge({
    name: 'egress_pool_allocated_addresses',
    help: 'Addresses allocated in each IPAMPool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const u of controller.poolUsage()) this.set({ pool: u.name }, u.allocated);
    },
  });
  new prom.Gauge({
    name: 'egress_pool_free_addresses',
    help: 'Addresses still free in each IPAMPool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const u of controller.poolUsage()) this.set({ pool: u.name }, u.free);
    },
  });
  new prom.Gauge({
    name: 'egress_policies',
    help: 'EgressGatewayPolicies by their Ready condition.',
    labelNames: ['ready'],
    registers: [registry],
    collect() {
      const counts = { True: 0, False: 0, Unknown: 0 };
      for (const p of controller.clients.policies.list()) {
        const status = findCondition(p.status?.conditions, 'Ready')?.status ?? 'Unknown';
        counts[status] += 1;
      }
      for (const [ready, n] of Object.entries(counts)) this.set({ ready }, n);
    },
  });
  new prom.Gauge({
    name: 'egress_cached_objects',
    help: 'Objects in the operator’s informer caches, by resource (policies and gateways: this shard’s share).',
    labelNames: ['resource'],
    registers: [registry],
    collect() {
      const { policies, pools, deployments } = controller.clients;
      this.set({ resource: 'egressgatewaypolicies' }, policies.list().length);
      this.set({ resource: 'ipampools' }, pools.list().length);
      this.set({ resource: 'deployments' }, deployments.list().length);
    },
  });
}
