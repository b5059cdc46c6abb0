import type {
  ControllerMetrics,
  LeaderElectionMetricsRecorder,
  QueueMetricsRecorder,
  QueueStats,
  ShardingMetricsRecorder,
  ShardingStats,
} from './metrics.ts';

/** The part of a prom-client `Registry` kubeloom uses. */
export interface PromRegistry {
  /** Looks up a registered metric by name. */
  getSingleMetric(name: string): unknown;
  /** Registers a metric created by one of the {@link PromClientModule} classes. */
  registerMetric(metric: never): void;
}

/** The configuration kubeloom passes to prom-client's metric constructors. */
export interface PromMetricConfig {
  /** Metric name. */
  name: string;
  /** Help text. */
  help: string;
  /** Label names. */
  labelNames: string[];
  /** Always empty: kubeloom registers each metric in the given registry itself. */
  registers: never[];
  /** Called before each scrape. */
  collect?: () => void;
  /** Histogram buckets, in seconds. */
  buckets?: number[];
}

/** The part of a prom-client `Gauge` kubeloom uses. */
export interface PromGauge {
  /** Sets the value for a label set. */
  set(labels: Record<string, string>, value: number): void;
}

/** The part of a prom-client `Counter` kubeloom uses. */
export interface PromCounter {
  /** Increments the value for a label set. */
  inc(labels: Record<string, string>, value?: number): void;
}

/** The part of a prom-client `Histogram` kubeloom uses. */
export interface PromHistogram {
  /** Records an observation for a label set. */
  observe(labels: Record<string, string>, value: number): void;
}

/** The prom-client module (`import * as promClient from 'prom-client'`), or anything shaped like it. */
export interface PromClientModule {
  /** `prom-client`'s Gauge class. */
  readonly Gauge: new (
    config: PromMetricConfig,
  ) => PromGauge;
  /** `prom-client`'s Counter class. */
  readonly Counter: new (
    config: PromMetricConfig,
  ) => PromCounter;
  /** `prom-client`'s Histogram class. */
  readonly Histogram: new (
    config: PromMetricConfig,
  ) => PromHistogram;
}

/** Options of {@link prometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** Where the metrics are registered (prom-client's `register`, or a `new Registry()`). */
  readonly registry: PromRegistry;
  /** The prom-client module; kubeloom never imports it itself. */
  readonly promClient: PromClientModule;
}

/** client-go's workqueue histogram buckets: 10 ns to 1000 s, ×10 per bucket. */
const DURATION_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

/** controller-runtime's `controller_runtime_reconcile_time_seconds` buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** What the registry knows of one queue; only the queue (through its recorder) holds it strongly. */
interface QueueEntry {
  readonly labels: { readonly name: string; readonly controller: string };
  readonly stats: QueueStats;
}

/** A registered queue, held weakly: a queue dropped without being shut down is not kept alive. */
interface Tracked {
  readonly name: string;
  readonly ref: WeakRef<QueueEntry>;
}

interface RegistryState {
  readonly depth: PromGauge;
  readonly adds: PromCounter;
  readonly queueDuration: PromHistogram;
  readonly workDuration: PromHistogram;
  readonly retries: PromCounter;
  readonly unfinished: PromGauge;
  readonly longest: PromGauge;
  readonly reconciles: PromCounter;
  readonly reconcileErrors: PromCounter;
  readonly reconcileTime: PromHistogram;
  readonly leader: PromGauge;
  readonly shardObjects: PromGauge;
  readonly shardMoves: PromCounter;
  readonly shardDrain: PromHistogram;
  /** Rings with a leading sharder, and the shards last reported per ring (zeroed when gone). */
  readonly rings: Map<string, { stats: ShardingStats; reported: Set<string> }>;
  /** Live queues by name (several queues may share one); a name leaves with its last queue. */
  readonly queues: Map<string, Set<Tracked>>;
  /** Unregisters queues that were garbage-collected without being shut down. */
  readonly finalizer: FinalizationRegistry<Tracked>;
}

const states = new WeakMap<PromRegistry, RegistryState>();

/**
 * Metrics on prom-client, with the names controller-runtime users have dashboards for: the
 * workqueue metrics with the labels `name` and `controller` (both the queue's name), as
 * controller-runtime's — `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`, `workqueue_retries_total`,
 * `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`; the reconcile
 * metrics with the label `controller` — `controller_runtime_reconcile_total` (and `result`:
 * `success`, `error`, `requeue_after`), `controller_runtime_reconcile_errors_total`,
 * `controller_runtime_reconcile_time_seconds`; `leader_election_master_status` with the
 * lease's `name`; and for the sharder of a ring, with the labels `ring` and `shard`:
 * `kubeloom_shard_objects` (objects assigned), `kubeloom_shard_moves_total` (moves onto the shard)
 * and `kubeloom_shard_drain_seconds` (from the drain request to the shard's acknowledgement).
 *
 * Gauges are computed when the registry is scraped: no timers. Calling it again with the same
 * registry reuses the same metrics. prom-client stays an optional peer dependency: pass the
 * module in, or use {@link importPrometheusMetrics}.
 *
 * A queue is registered from its construction until it closes (its run ended, or
 * it was disposed); its gauges then drop to zero, and scrapes no longer visit it. A queue that
 * is dropped without ever running or being shut down is held only weakly: once garbage-collected,
 * it is unregistered the same way. Each queue or lease name stays a label value of these metrics
 * for the registry's lifetime, as with any Prometheus label: use a fixed set of names, not one
 * per object or request.
 *
 * @throws Error when the registry already holds one of these names from another source.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#prometheusMetrics}
 */
export function prometheusMetrics(opts: PrometheusMetricsOptions): ControllerMetrics {
  const { registry, promClient } = opts;
  let state = states.get(registry);
  if (!state) {
    state = createState(registry, promClient);
    states.set(registry, state);
  }
  const s = state;
  return {
    queue(name: string, stats: QueueStats): QueueMetricsRecorder {
      const entry: QueueEntry = { labels: { name, controller: name }, stats };
      const tracked: Tracked = { name, ref: new WeakRef(entry) };
      let set = s.queues.get(name);
      if (!set) {
        set = new Set();
        s.queues.set(name, set);
      }
      set.add(tracked);
      s.finalizer.register(entry, tracked, tracked);
      // The recorder's closures hold `entry`: it lives exactly as long as the queue.
      return {
        add: () => s.adds.inc(entry.labels),
        retry: () => s.retries.inc(entry.labels),
        observeQueueDuration: (seconds) => s.queueDuration.observe(entry.labels, seconds),
        observeWorkDuration: (seconds) => s.workDuration.observe(entry.labels, seconds),
        reconcile: (result, seconds) => {
          const controller = { controller: entry.labels.name };
          s.reconciles.inc({ ...controller, result });
          if (result === 'error') s.reconcileErrors.inc(controller);
          s.reconcileTime.observe(controller, seconds);
        },
        close: () => {
          s.finalizer.unregister(tracked);
          unregister(s, tracked);
        },
      };
    },
    leaderElection(name: string): LeaderElectionMetricsRecorder {
      const labels = { name };
      s.leader.set(labels, 0);
      return {
        setLeader: (leading) => s.leader.set(labels, leading ? 1 : 0),
        close: () => s.leader.set(labels, 0),
      };
    },
    sharding(ring: string, stats: ShardingStats): ShardingMetricsRecorder {
      const entry = { stats, reported: s.rings.get(ring)?.reported ?? new Set<string>() };
      s.rings.set(ring, entry);
      return {
        move: (shard) => s.shardMoves.inc({ ring, shard }),
        observeDrain: (shard, seconds) => s.shardDrain.observe({ ring, shard }, seconds),
        close: () => {
          if (s.rings.get(ring) !== entry) return;
          for (const shard of entry.reported) s.shardObjects.set({ ring, shard }, 0);
          entry.reported.clear();
          s.rings.delete(ring);
        },
      };
    },
  };
}

/**
 * {@link prometheusMetrics} with prom-client loaded by a dynamic `import('prom-client')`.
 *
 * @throws Error when prom-client is not installed, saying how to fix it.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#importPrometheusMetrics}
 */
export async function importPrometheusMetrics(registry: PromRegistry): Promise<ControllerMetrics> {
  let mod: unknown;
  try {
    mod = await import('prom-client');
  } catch (err) {
    throw new Error(
      'importPrometheusMetrics: prom-client could not be loaded; install it (`npm i prom-client`, an optional ' +
        'peer dependency of @kubeloom/controllers) or pass it to prometheusMetrics({ registry, promClient })',
      { cause: err },
    );
  }
  const m = mod as PromClientModule & { default?: PromClientModule };
  return prometheusMetrics({ registry, promClient: typeof m.Gauge === 'function' ? m : m.default! });
}

/**
 * Forgets a queue that closed or was garbage-collected. The last queue of a name sets the name's
 * gauges to zero once, here, so scrapes only ever visit live queues.
 */
function unregister(s: RegistryState, tracked: Tracked): void {
  const set = s.queues.get(tracked.name);
  if (!set?.delete(tracked) || set.size !== 0) return;
  s.queues.delete(tracked.name);
  const labels = { name: tracked.name, controller: tracked.name };
  s.depth.set(labels, 0);
  s.unfinished.set(labels, 0);
  s.longest.set(labels, 0);
}

/** Workqueue metrics carry the queue's name as `name` and as `controller`, as controller-runtime's do. */
const QUEUE_LABELS = ['name', 'controller'];

function createState(registry: PromRegistry, prom: PromClientModule): RegistryState {
  const queues = new Map<string, Set<Tracked>>();
  const make = <M>(
    ctor: new (c: PromMetricConfig) => M,
    config: Omit<PromMetricConfig, 'labelNames' | 'registers'> & { labelNames?: string[] },
  ): M => {
    if (registry.getSingleMetric(config.name) !== undefined) {
      throw new Error(
        `prometheusMetrics: the registry already has a metric named ${config.name} that kubeloom did not create; ` +
          'use a separate Registry for kubeloom, or remove the other metric',
      );
    }
    const metric = new ctor({ labelNames: QUEUE_LABELS, ...config, registers: [] });
    registry.registerMetric(metric as never);
    return metric;
  };

  // Gauges computed from the live queues at scrape time; queues sharing a name are summed
  // (longest: max). A queue found collected is unregistered on the way.
  let state!: RegistryState;
  const perName = (read: (stats: QueueStats) => number, combine: (a: number, b: number) => number) => {
    const out = new Map<string, number>();
    const gone: Tracked[] = [];
    for (const [name, set] of queues) {
      let value: number | undefined;
      for (const tracked of set) {
        const entry = tracked.ref.deref();
        if (entry === undefined) {
          gone.push(tracked);
          continue;
        }
        const v = read(entry.stats);
        value = value === undefined ? v : combine(value, v);
      }
      if (value !== undefined) out.set(name, value);
    }
    for (const tracked of gone) {
      state.finalizer.unregister(tracked);
      unregister(state, tracked);
    }
    return out;
  };
  const sum = (a: number, b: number) => a + b;
  let depth!: PromGauge;
  let unfinished!: PromGauge;
  let longest!: PromGauge;
  const rings = new Map<string, { stats: ShardingStats; reported: Set<string> }>();
  let shardObjects!: PromGauge;
  shardObjects = make(prom.Gauge, {
    name: 'kubeloom_shard_objects',
    help: 'Objects the sharder assigned to each shard of a ring (by their shard label).',
    labelNames: ['ring', 'shard'],
    collect: () => {
      for (const [ring, { stats, reported }] of rings) {
        const now = stats.assigned();
        for (const shard of reported) if (!now.has(shard)) shardObjects.set({ ring, shard }, 0);
        reported.clear();
        for (const [shard, n] of now) {
          shardObjects.set({ ring, shard }, n);
          reported.add(shard);
        }
      }
    },
  });
  depth = make(prom.Gauge, {
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    collect: () => {
      for (const [name, v] of perName((s) => s.depth(), sum)) depth.set({ name, controller: name }, v);
    },
  });
  unfinished = make(prom.Gauge, {
    name: 'workqueue_unfinished_work_seconds',
    help:
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate ' +
      'at which this increases.',
    collect: () => {
      for (const [name, v] of perName((s) => s.unfinishedWorkSeconds(), sum))
        unfinished.set({ name, controller: name }, v);
    },
  });
  longest = make(prom.Gauge, {
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    collect: () => {
      for (const [name, v] of perName((s) => s.longestRunningProcessorSeconds(), Math.max)) {
        longest.set({ name, controller: name }, v);
      }
    },
  });
  state = {
    depth,
    unfinished,
    longest,
    adds: make(prom.Counter, {
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
    }),
    queueDuration: make(prom.Histogram, {
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      buckets: DURATION_BUCKETS,
    }),
    workDuration: make(prom.Histogram, {
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      buckets: DURATION_BUCKETS,
    }),
    retries: make(prom.Counter, {
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
    }),
    reconciles: make(prom.Counter, {
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
    }),
    reconcileErrors: make(prom.Counter, {
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
    }),
    reconcileTime: make(prom.Histogram, {
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
    }),
    leader: make(prom.Gauge, {
      labelNames: ['name'],
      name: 'leader_election_master_status',
      help:
        'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. ' +
        "'name' is the string used to identify the lease. Please make sure to group by name.",
    }),
    shardObjects,
    shardMoves: make(prom.Counter, {
      name: 'kubeloom_shard_moves_total',
      help: 'Objects the sharder moved onto each shard of a ring (after a drain or from an expired shard).',
      labelNames: ['ring', 'shard'],
    }),
    shardDrain: make(prom.Histogram, {
      name: 'kubeloom_shard_drain_seconds',
      help: "Seconds from the sharder's drain request to the owning shard's acknowledgement.",
      labelNames: ['ring', 'shard'],
      buckets: RECONCILE_BUCKETS,
    }),
    rings,
    queues,
    finalizer: new FinalizationRegistry<Tracked>((tracked) => unregister(state, tracked)),
  };
  return state;
}
