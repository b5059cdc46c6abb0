/**
 * The operator program: flags → logger → kube client → controller, probes and metrics →
 * informers on every replica → workers only while leading. Stops cleanly when `signal` aborts
 * (SIGTERM in a Pod): workers finish their reconcile, the Lease is released, servers close.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  createLeaderElector,
  createShardRing,
  prometheusMetrics,
  prometheusRequestMetrics,
  type ShardRing,
  validateShardIdentity,
} from '@kubeloom/controllers';
import {
  createKubeClient,
  type KubeClient,
  KubeConfigError,
  type Logger,
  loadKubeConfig,
} from '@kubeloom/kube';
import * as prom from 'prom-client';
import { createEgressController, type EgressController } from '../controller/egress-controller.ts';
import { ownsOnRing } from '../controller/sharding.ts';
import { FlagError, type OperatorFlags, parseFlags, USAGE } from './flags.ts';
import { createLogger } from './logger.ts';
import { startMetricsServer } from './metrics-server.ts';
import { registerOperatorMetrics } from './operator-metrics.ts';
import { type ListeningServer, startProbeServer } from './probes.ts';
import { runShard } from './run-sharded.ts';
import { selfSignedCertificate } from './self-signed.ts';

/** The default in-cluster service-account directory. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Where the program reads and writes (injectable for tests). */
export interface OperatorIO {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted on SIGTERM/SIGINT. */
  readonly signal: AbortSignal;
}

/** Runs the operator until `io.signal` aborts; resolves to the process exit code. */
export async function runOperator(io: OperatorIO): Promise<number> {
  const saDir = io.env.KUBELOOM_SERVICE_ACCOUNT_DIR ?? SERVICE_ACCOUNT_DIR;
  const inCluster = !!io.env.KUBERNETES_SERVICE_HOST && !io.env.KUBECONFIG;
  let flags: OperatorFlags;
  try {
    flags = parseFlags(io.argv, { inCluster });
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    io.stderr(`kubeloom-egress-operator: ${error.message}\n`);
    return 2;
  }
  if (flags.help) {
    io.stdout(USAGE);
    return 0;
  }
  const logger = createLogger({
    level: flags.logLevel,
    format: flags.logFormat,
    write: (l) => io.stderr(`${l}\n`),
  });
  const registry = new prom.Registry();
  let kube: KubeClient;
  let ringKube: KubeClient | undefined;
  try {
    const kubeConfig = loadKubeConfig({
      kubeconfigPath: flags.kubeconfig,
      env: io.env,
      serviceAccountDir: saDir,
    });
    const host = new URL(kubeConfig.getCurrentCluster()?.server ?? 'https://unknown').host;
    const requestObserver = prometheusRequestMetrics({ registry, promClient: prom, host });
    kube = createKubeClient({ kubeConfig, logger, requestObserver });
    // The sharder's and the ring's informers run with the sharder, not with the controller's caches.
    if (flags.shardRing) ringKube = createKubeClient({ kubeConfig, logger, requestObserver });
  } catch (error) {
    if (!(error instanceof KubeConfigError)) throw error;
    logger.error('cannot load a Kubernetes configuration', { err: error });
    return 1;
  }
  const servers: ListeningServer[] = [];
  try {
    return await operate({ io, flags, kube, ringKube, logger, servers, saDir, registry });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await ringKube?.[Symbol.asyncDispose]();
    await kube[Symbol.asyncDispose]();
    logger.info('stopped');
  }
}

interface Running {
  readonly io: OperatorIO;
  readonly flags: OperatorFlags;
  readonly kube: KubeClient;
  /** Set with `--shard-ring`: the sharder's and the ring view's client. */
  readonly ringKube: KubeClient | undefined;
  readonly logger: Logger;
  readonly servers: ListeningServer[];
  readonly saDir: string;
  readonly registry: prom.Registry;
}

/** With `--shard-ring`: the replica's identity, the Lease namespace and the ring view. */
interface Sharding {
  readonly identity: string;
  readonly namespace: string;
  readonly ring: ShardRing;
}

async function operate(running: Running): Promise<number> {
  const { io, flags, kube, ringKube, logger, saDir, registry } = running;
  prom.collectDefaultMetrics({ register: registry });
  const metrics = prometheusMetrics({ registry, promClient: prom });
  let sharding: Sharding | undefined;
  if (flags.shardRing && ringKube) {
    const identity = flags.shardIdentity ?? io.env.POD_NAME ?? hostname();
    const namespace = flags.leaderElectionNamespace ?? (await podNamespace(io.env, saDir));
    try {
      validateShardIdentity(identity); // a Lease name and a label value
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      logger.error(`cannot join ring ${flags.shardRing} (set --shard-identity)`, { err: error });
      return 2;
    }
    const ring = createShardRing({ kube: ringKube, ring: flags.shardRing, namespace });
    sharding = { identity, namespace, ring };
  }
  const controller = createEgressController(kube, {
    namespace: flags.namespace,
    workers: flags.concurrency,
    poolSummary: flags.poolSummary,
    logger,
    metrics,
    ...(sharding
      ? {
          shard: {
            ring: sharding.ring.labels.ring,
            identity: sharding.identity,
            owns: ownsOnRing(sharding.ring, sharding.identity),
            fencing: sharding.ring,
          },
        }
      : {}),
  });
  // try/finally rather than `await using`: the operator runs on Node 22.19, which lacks it.
  try {
    return await serve({ ...running, controller, metrics, sharding });
  } finally {
    await controller[Symbol.asyncDispose]();
  }
}

interface Serving extends Running {
  readonly controller: EgressController;
  readonly metrics: ReturnType<typeof prometheusMetrics>;
  readonly sharding: Sharding | undefined;
}

async function serve({
  io,
  flags,
  kube,
  ringKube,
  logger,
  servers,
  registry,
  saDir,
  controller,
  metrics,
  sharding,
}: Serving): Promise<number> {
  registerOperatorMetrics(registry, controller);
  let informersSynced = false;
  if (flags.healthProbeBindAddress) {
    const probes = await startProbeServer({
      address: flags.healthProbeBindAddress,
      readyChecks: { informers: () => informersSynced },
    });
    servers.push(probes);
    logger.info('serving health probes', { port: probes.port });
  }
  if (flags.metricsBindAddress) {
    const secure = flags.metricsSecure ? { kube, ...servingCertificate(flags, io.env) } : undefined;
    const server = await startMetricsServer({ address: flags.metricsBindAddress, registry, secure, logger });
    servers.push(server);
    logger.info('serving metrics', { port: server.port, secure: !!secure });
  }

  informersSynced = await kube.runAndWait(io.signal);
  if (!informersSynced) return 0; // stopped while syncing
  logger.info('caches synced');
  if (sharding && ringKube) {
    return runShard({
      kube,
      ringKube,
      ring: sharding.ring,
      controller,
      identity: sharding.identity,
      namespace: sharding.namespace,
      watchNamespace: flags.namespace,
      timings: flags.lease,
      logger,
      metrics,
      signal: io.signal,
    });
  }
  if (!flags.leaderElect) {
    await controller.run(io.signal);
    return 0;
  }
  const namespace = flags.leaderElectionNamespace ?? (await podNamespace(io.env, saDir));
  const elector = createLeaderElector({
    api: kube.api,
    lease: { namespace, name: flags.leaderElectionId },
    identity: `${io.env.POD_NAME ?? hostname()}_${randomUUID()}`,
    ...flags.lease,
    releaseOnCancel: true,
    logger,
    metrics,
    onStartedLeading: (leading) => {
      logger.info('became leader, starting workers');
      return controller.run(leading);
    },
  });
  await elector.run(io.signal);
  if (io.signal.aborted) return 0;
  // As controller-runtime: a replica that lost its lease exits and is restarted, so its workers
  // can never race the new leader's.
  logger.error('leader election lost');
  return 1;
}

async function podNamespace(env: OperatorIO['env'], saDir: string): Promise<string> {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return (await readFile(path.join(saDir, 'namespace'), 'utf8')).trim() || 'default';
  } catch {
    return 'default';
  }
}

/** The mounted certificate (`--metrics-cert-dir`: `tls.crt`, `tls.key`), or a self-signed one. */
function servingCertificate(flags: OperatorFlags, env: OperatorIO['env']): { cert: string; key: string } {
  const dir = flags.metricsCertDir;
  if (dir)
    return {
      cert: readFileSync(path.join(dir, 'tls.crt'), 'utf8'),
      key: readFileSync(path.join(dir, 'tls.key'), 'utf8'),
    };
  const service = 'kubeloom-egress-operator-metrics';
  const ns = env.POD_NAMESPACE ?? 'kubeloom-egress-system';
  return selfSignedCertificate([service, `${service}.${ns}.svc`, 'localhost', '127.0.0.1', '::1']);
}
