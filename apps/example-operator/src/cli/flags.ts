/**
 * The operator's command line, with the flags controller-runtime users know. Parsing is pure:
 * {@link parseFlags} returns the options or throws a {@link FlagError} that says what is wrong.
 *
 * @module
 */

import { parseArgs } from 'node:util';

/** A bind address: `host:port`, `:port` (every interface) or disabled (`0`). */
export interface BindAddress {
  /** The host to listen on; `undefined` for every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

/** The parsed command line. */
export interface OperatorFlags {
  readonly kubeconfig: string | undefined;
  /** Watch policies in this namespace only; `undefined` for all namespaces. */
  readonly namespace: string | undefined;
  readonly leaderElect: boolean;
  /** Namespace of the leader-election Lease; `undefined`: the Pod's namespace (in-cluster) or `default`. */
  readonly leaderElectionNamespace: string | undefined;
  readonly leaderElectionId: string;
  /**
   * Lease timings (`--leader-elect-lease-duration`, `--leader-elect-renew-deadline`,
   * `--leader-elect-retry-period`, as kube-controller-manager names them and controller-runtime's
   * `LeaseDuration`, `RenewDeadline`, `RetryPeriod`): of the leader Lease, and with `--shard-ring`
   * of every shard Lease and of the sharder's election. Validated as client-go does: duration >
   * renew deadline > 1.2 × retry period > 0.
   */
  readonly lease: LeaseTimings;
  /**
   * Run as one shard of this ring (`--shard-ring`): every replica holds its own Lease, the ring's
   * elected replica labels policies with their shard, each replica caches and reconciles only its
   * share. `undefined`: not sharded.
   */
  readonly shardRing: string | undefined;
  /** This replica's shard identity; `undefined`: `$POD_NAME`, else the host name. */
  readonly shardIdentity: string | undefined;
  /** `undefined` when metrics are disabled (`--metrics-bind-address=0`). */
  readonly metricsBindAddress: BindAddress | undefined;
  readonly metricsSecure: boolean;
  /** Directory holding `tls.crt` and `tls.key` for secure metrics; `undefined`: a self-signed certificate. */
  readonly metricsCertDir: string | undefined;
  /** `undefined` when probes are disabled (`--health-probe-bind-address=0`). */
  readonly healthProbeBindAddress: BindAddress | undefined;
  readonly concurrency: number;
  /** How the pool-summary pass is driven: `krt` (a derived pool-usage collection) or `queue` (every pool event). */
  readonly poolSummary: 'krt' | 'queue';
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** `json` lines (the default in a Pod) or `text`. */
  readonly logFormat: 'json' | 'text';
  readonly help: boolean;
}

/** Lease timings in milliseconds. */
export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** A command line the operator cannot run with; the message says which flag and what to pass. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** The `--help` text. */
export const USAGE = `Usage: kubeloom-egress-operator [flags]

  --kubeconfig <path>                  kubeconfig to use (default: $KUBECONFIG, in-cluster config in a Pod, ~/.kube/config)
  --namespace <ns>                     watch EgressGatewayPolicies in this namespace only (default: all)
  --leader-elect                       run workers only while holding the leader Lease (use with more than one replica)
  --leader-election-namespace <ns>     namespace of the Lease (default: the Pod's namespace, else "default")
  --leader-election-id <name>          name of the Lease (default: kubeloom-egress-operator)
  --leader-elect-lease-duration <d>    how long a Lease holds without renewal, e.g. 15s (default: 15s); also the
                                       shard Leases' with --shard-ring
  --leader-elect-renew-deadline <d>    how long a holder retries renewing before it gives up (default: 10s)
  --leader-elect-retry-period <d>      how often a Lease is tried and renewed (default: 2s); lease duration >
                                       renew deadline > 1.2 x retry period
  --shard-ring <name>                  run as one shard of this ring instead of electing one leader: each replica
                                       holds its own Lease and caches and reconciles only its share of the policies
                                       (Leases in the leader-election namespace)
  --shard-identity <name>              this replica's shard (default: $POD_NAME, else the host name)
  --metrics-bind-address <addr>        where /metrics listens, [host]:port or 0 to disable (default: :8443)
  --metrics-secure[=false]             serve metrics over HTTPS, authenticated and authorized (default: true)
  --metrics-cert-dir <dir>             tls.crt and tls.key for metrics (default: a self-signed certificate)
  --health-probe-bind-address <addr>   where /healthz and /readyz listen, or 0 (default: :8081)
  --concurrency <n>                    parallel reconciles, 1-64 (default: 1)
  --pool-summary <krt|queue>           what drives the pool-summary pass: a derived pool-usage collection (krt)
                                       or every pool event (queue) (default: krt)
  --log-level <debug|info|warn|error>  (default: info)
  --log-format <json|text>             (default: json in a Pod, text elsewhere)
  -h, --help                           print this help
`;

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const LOG_FORMATS = ['json', 'text'] as const;
const POOL_SUMMARY = ['krt', 'queue'] as const;

/** Parses a bind address the way controller-runtime accepts it. */
export function parseBindAddress(flag: string, text: string): BindAddress | undefined {
  if (text === '0') return undefined;
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]*))?:(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port < 0 || port > 65_535)
    throw new FlagError(
      `--${flag}=${text}: expected [host]:port (e.g. :8081 or 127.0.0.1:8081) or 0 to disable`,
    );
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : undefined;
  return { host, port };
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration (`15s`, `1m30s`, `500ms`, `1.5s`) into milliseconds. */
export function parseDuration(flag: string, text: string): number {
  const parts = /^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;
  let rest = text;
  let ms = 0;
  while (rest.length > 0) {
    const m = parts.exec(rest);
    if (!m) break;
    const unit = /(ns|us|µs|ms|s|m|h)$/.exec(m[0])?.[1] ?? '';
    ms += Number(m[0].slice(0, m[0].length - unit.length)) * (DURATION_UNITS[unit] ?? Number.NaN);
    rest = rest.slice(m[0].length);
  }
  if (text === '' || rest.length > 0 || !Number.isFinite(ms) || ms <= 0)
    throw new FlagError(`--${flag}=${text}: expected a positive duration such as 15s, 500ms or 1m30s`);
  return ms;
}

/** The three Lease timings, checked against each other as client-go's leader elector does. */
function leaseTimings(str: (k: string) => string | undefined): LeaseTimings {
  const leaseDurationMs = parseDuration(
    'leader-elect-lease-duration',
    str('leader-elect-lease-duration') ?? '15s',
  );
  const renewDeadlineMs = parseDuration(
    'leader-elect-renew-deadline',
    str('leader-elect-renew-deadline') ?? '10s',
  );
  const retryPeriodMs = parseDuration('leader-elect-retry-period', str('leader-elect-retry-period') ?? '2s');
  if (leaseDurationMs <= renewDeadlineMs)
    throw new FlagError(
      `--leader-elect-lease-duration (${leaseDurationMs} ms) must be greater than --leader-elect-renew-deadline (${renewDeadlineMs} ms)`,
    );
  if (renewDeadlineMs <= 1.2 * retryPeriodMs)
    throw new FlagError(
      `--leader-elect-renew-deadline (${renewDeadlineMs} ms) must be greater than 1.2 × --leader-elect-retry-period (${retryPeriodMs} ms)`,
    );
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FlagError(`--${flag}=${value}: expected one of ${allowed.join(', ')}`);
}

function bool(flag: string, value: string | boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new FlagError(`--${flag}=${value}: expected true or false`);
}

/**
 * Parses `argv` (without the node and script paths). `inCluster` picks the default log format.
 *
 * @throws FlagError for an unknown flag, a missing or malformed value, or a value out of range.
 */
export function parseFlags(argv: readonly string[], options: { readonly inCluster: boolean }): OperatorFlags {
  let parsed: ReturnType<typeof parseArgs>;
  // Booleans accept `--flag`, `--flag=true` and `--flag=false`, as Go's flag package does: they
  // are parsed as strings, a bare flag standing for `=true`.
  const booleans = new Set(['--leader-elect', '--metrics-secure']);
  try {
    parsed = parseArgs({
      args: argv.map((a) => (booleans.has(a) ? `${a}=true` : a)),
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        namespace: { type: 'string' },
        'leader-elect': { type: 'string' },
        'leader-election-namespace': { type: 'string' },
        'leader-election-id': { type: 'string' },
        'leader-elect-lease-duration': { type: 'string' },
        'leader-elect-renew-deadline': { type: 'string' },
        'leader-elect-retry-period': { type: 'string' },
        'shard-ring': { type: 'string' },
        'shard-identity': { type: 'string' },
        'metrics-bind-address': { type: 'string' },
        'metrics-secure': { type: 'string' },
        'metrics-cert-dir': { type: 'string' },
        'health-probe-bind-address': { type: 'string' },
        concurrency: { type: 'string' },
        'pool-summary': { type: 'string' },
        'log-level': { type: 'string' },
        'log-format': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new FlagError(`${error instanceof Error ? error.message : String(error)} (see --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const concurrencyText = str('concurrency') ?? '1';
  const concurrency = Number(concurrencyText);
  if (!/^\d+$/.test(concurrencyText) || concurrency < 1 || concurrency > 64)
    throw new FlagError(`--concurrency=${concurrencyText}: expected an integer from 1 to 64`);
  for (const k of [
    'kubeconfig',
    'namespace',
    'leader-election-namespace',
    'leader-election-id',
    'metrics-cert-dir',
    'shard-ring',
    'shard-identity',
  ])
    if (str(k) === '') throw new FlagError(`--${k} needs a value`);
  const leaderElect = bool('leader-elect', v['leader-elect'], false);
  if (leaderElect && str('shard-ring') !== undefined)
    throw new FlagError(
      '--leader-elect and --shard-ring exclude each other: a sharded replica holds its own Lease in the ring (drop --leader-elect)',
    );
  if (str('shard-identity') !== undefined && str('shard-ring') === undefined)
    throw new FlagError('--shard-identity needs --shard-ring (the ring the replica joins)');
  return {
    kubeconfig: str('kubeconfig'),
    namespace: str('namespace'),
    leaderElect,
    leaderElectionNamespace: str('leader-election-namespace'),
    leaderElectionId: str('leader-election-id') ?? 'kubeloom-egress-operator',
    lease: leaseTimings(str),
    shardRing: str('shard-ring'),
    shardIdentity: str('shard-identity'),
    metricsBindAddress: parseBindAddress('metrics-bind-address', str('metrics-bind-address') ?? ':8443'),
    metricsSecure: bool('metrics-secure', v['metrics-secure'], true),
    metricsCertDir: str('metrics-cert-dir'),
    healthProbeBindAddress: parseBindAddress(
      'health-probe-bind-address',
      str('health-probe-bind-address') ?? ':8081',
    ),
    concurrency,
    poolSummary: oneOf('pool-summary', str('pool-summary') ?? 'krt', POOL_SUMMARY),
    logLevel: oneOf('log-level', str('log-level') ?? 'info', LOG_LEVELS),
    logFormat: oneOf('log-format', str('log-format') ?? (options.inCluster ? 'json' : 'text'), LOG_FORMATS),
    help: v.help === true,
  };
}
