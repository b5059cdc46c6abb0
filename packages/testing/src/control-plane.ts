import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { findBinary } from './binaries.ts';
import { createCertificateAuthority, serviceAccountKeyPair } from './certs.ts';
import { get } from './internal/http.ts';
import { freePort } from './ports.ts';
import { createTempDir, type ManagedProcess, removeTempDir, startProcess } from './process.ts';

/** Options for {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /**
   * Extra kube-apiserver flags, `--name=value` or `--name`. A flag that the harness also sets
   * replaces the harness's value (e.g. `--authorization-mode=AlwaysAllow`). Tests use this for
   * `--etcd-compaction-interval=5s` or `--watch-cache=false`.
   */
  readonly apiServerArgs?: readonly string[];
  /** Extra etcd flags, same rules as {@link ControlPlaneOptions.apiServerArgs}. */
  readonly etcdArgs?: readonly string[];
  /** A directory holding `kube-apiserver` and `etcd`, consulted after `KUBEBUILDER_ASSETS`. */
  readonly binaryAssetsDirectory?: string;
  /**
   * How long to wait for each process to become ready. Default: 60 s, or
   * `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` (seconds or a Go-style duration like `90s`).
   */
  readonly startTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL, per process. Default 20 s. */
  readonly stopTimeoutMs?: number;
  /** Where the temporary directory is created; defaults to `/dev/shm` when writable, else the OS temp dir. */
  readonly rootDir?: string;
  /** Aborting stops the control plane (or cancels a start in progress). */
  readonly signal?: AbortSignal;
  /** How many times a start is retried when a port turns out to be taken. Default 5. */
  readonly attempts?: number;
}

/** The server's `/version`. */
export interface ServerVersion {
  /** E.g. `v1.37.2`. */
  readonly gitVersion: string;
  /** E.g. `1`. */
  readonly major: string;
  /** E.g. `37`. */
  readonly minor: string;
}

/** A running etcd + kube-apiserver pair. Stop it with {@link ControlPlane.stop}. */
export interface ControlPlane {
  /** The apiserver URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** An admin (group `system:masters`) client configuration for `@kubernetes/client-node`. */
  readonly kubeConfig: KubeConfig;
  /** The same configuration as a kubeconfig file, usable with kubectl (`kubectl --kubeconfig`). */
  readonly kubeconfigPath: string;
  /** The etcd client URL, `http://127.0.0.1:<port>`. */
  readonly etcdUrl: string;
  /** The temporary directory holding certificates, etcd data and logs; removed by `stop()`. */
  readonly dir: string;
  /** The apiserver's version. */
  readonly version: ServerVersion;
  /** The CA that signed the serving and client certificates, PEM. */
  readonly caPem: string;
  /** Process ids and ports, so tests can check that `stop()` leaves nothing behind. */
  readonly processes: {
    readonly etcd: { readonly pid: number; readonly ports: readonly number[]; readonly logFile: string };
    readonly apiServer: { readonly pid: number; readonly ports: readonly number[]; readonly logFile: string };
  };
  /**
   * A client configuration for another user, authenticated by a client certificate
   * (`CN=name`, `O=groups`). Users need no registration: RBAC decides what they may do.
   */
  userKubeConfig(name: string, groups?: readonly string[]): KubeConfig;
  /** Stops the apiserver, then etcd (SIGTERM, then SIGKILL), and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
  /** Same as {@link ControlPlane.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Thrown when the control plane cannot start; the message includes the failing process's log tail. */
export class ControlPlaneStartError extends Error {
  /** Creates the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ControlPlaneStartError';
  }
}

function parseDurationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number.parseFloat(m[1]!);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000;
}

function mergeFlags(defaults: Record<string, string | undefined>, extra: readonly string[] = []): string[] {
  const merged = new Map<string, string | undefined>(Object.entries(defaults));
  for (const arg of extra) {
    if (!arg.startsWith('--')) throw new TypeError(`control-plane flag "${arg}" must look like --name=value`);
    const eq = arg.indexOf('=');
    if (eq === -1) merged.set(arg.slice(2), undefined);
    else merged.set(arg.slice(2, eq), arg.slice(eq + 1));
  }
  return [...merged].map(([k, v]) => (v === undefined ? `--${k}` : `--${k}=${v}`));
}

function defaultRoot(): string {
  if (existsSync('/dev/shm')) {
    try {
      const probe = mkdtempSync('/dev/shm/kubeloom-probe-');
      rmSync(probe, { recursive: true, force: true });
      return '/dev/shm';
    } catch {
      // fall through
    }
  }
  return tmpdir();
}

async function waitUntil(
  what: string,
  proc: ManagedProcess,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    if (proc.exited()) {
      throw new ControlPlaneStartError(
        `${proc.name} exited (${proc.exitStatus()}) before ${what}. Last log lines (${proc.logFile}):\n${proc.logTail()}`,
      );
    }
    try {
      if (await probe()) return;
    } catch {
      // not yet: connection refused, 403 before RBAC bootstrap, TLS not ready
    }
    if (Date.now() > deadline) {
      throw new ControlPlaneStartError(
        `timed out after ${timeoutMs} ms waiting for ${what}. Raise startTimeoutMs or ` +
          `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT on slow machines. Last log lines of ${proc.name} (${proc.logFile}):\n${proc.logTail()}`,
      );
    }
    await sleep(100, undefined, signal ? { signal } : {});
  }
}

function isPortClash(proc: ManagedProcess): boolean {
  return /address already in use/i.test(proc.logTail(60));
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

function kubeConfigFor(
  server: string,
  caPem: string,
  user: string,
  certPem: string,
  keyPem: string,
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kubeloom-test', server, caData: b64(caPem), skipTLSVerify: false }],
    users: [{ name: user, certData: b64(certPem), keyData: b64(keyPem) }],
    contexts: [{ name: 'kubeloom-test', cluster: 'kubeloom-test', user }],
    currentContext: 'kubeloom-test',
  });
  return kc;
}

function kubeconfigYaml(
  server: string,
  caPem: string,
  user: string,
  certPem: string,
  keyPem: string,
): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kubeloom-test',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate-data: ${b64(certPem)}`,
    `    client-key-data: ${b64(keyPem)}`,
    'contexts:',
    '- name: kubeloom-test',
    '  context:',
    '    cluster: kubeloom-test',
    `    user: ${user}`,
    'current-context: kubeloom-test',
    '',
  ].join('\n');
}

/**
 * Starts a real etcd and kube-apiserver on 127.0.0.1 with free ports, a temporary directory,
 * RBAC authorization, service-account signing keys and an admin client certificate
 * (`CN=admin`, `O=system:masters`), and waits until the apiserver is healthy and the `default`
 * namespace exists.
 *
 * Binaries are found by {@link findBinary}. A start that loses a port race is retried with new
 * ports. On any failure everything already started is stopped and the directory removed.
 *
 * Caveats: there is no controller-manager, scheduler or kubelet. Namespaces never finish
 * terminating, garbage collection never runs, Deployments never get Pods. Isolate tests by
 * namespace ({@link createTestNamespace}) rather than by deleting things.
 *
 * @example
 * ```ts
 * await using plane = await startControlPlane();
 * const core = plane.kubeConfig.makeApiClient(CoreV1Api);
 * ```
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const etcdBin = findBinary('etcd', options);
  const apiServerBin = findBinary('kube-apiserver', options);
  const attempts = options.attempts ?? 5;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await startOnce(etcdBin, apiServerBin, options);
    } catch (err) {
      lastError = err;
      if (!(err instanceof PortClashError)) throw err;
    }
  }
  throw new ControlPlaneStartError(`could not find free ports after ${attempts} attempts`, {
    cause: lastError,
  });
}

class PortClashError extends Error {}

async function startOnce(
  etcdBin: string,
  apiServerBin: string,
  options: ControlPlaneOptions,
): Promise<ControlPlane> {
  const startTimeoutMs =
    options.startTimeoutMs ?? parseDurationMs(process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT) ?? 60_000;
  const stopTimeoutMs =
    options.stopTimeoutMs ?? parseDurationMs(process.env.KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT) ?? 20_000;
  // Removed by stop(), or synchronously when the process exits without stopping the plane.
  const dir = createTempDir(options.rootDir ?? defaultRoot(), 'kubeloom-cp-');
  const started: ManagedProcess[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    options.signal?.removeEventListener('abort', onAbort);
    // apiserver first, then etcd, as envtest does
    for (const proc of [...started].reverse()) await proc.stop(stopTimeoutMs);
    removeTempDir(dir);
  };
  const onAbort = (): void => {
    void stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const pki = path.join(dir, 'pki');
    mkdirSync(pki);
    const ca = createCertificateAuthority();
    const serving = ca.issue({
      commonName: 'kube-apiserver',
      hosts: ['127.0.0.1', 'localhost'],
      usage: 'server',
    });
    const admin = ca.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' });
    const sa = serviceAccountKeyPair();
    const files = {
      ca: path.join(pki, 'ca.crt'),
      servingCert: path.join(pki, 'apiserver.crt'),
      servingKey: path.join(pki, 'apiserver.key'),
      saKey: path.join(pki, 'sa.key'),
      saPub: path.join(pki, 'sa.pub'),
    };
    writeFileSync(files.ca, ca.certPem);
    writeFileSync(files.servingCert, serving.certPem);
    writeFileSync(files.servingKey, serving.keyPem, { mode: 0o600 });
    writeFileSync(files.saKey, sa.privateKeyPem, { mode: 0o600 });
    writeFileSync(files.saPub, sa.publicKeyPem);

    // etcd
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcdArgs = mergeFlags(
      {
        name: 'kubeloom',
        'data-dir': path.join(dir, 'etcd'),
        'listen-client-urls': etcdUrl,
        'advertise-client-urls': etcdUrl,
        'listen-peer-urls': `http://127.0.0.1:${peerPort}`,
        'initial-advertise-peer-urls': `http://127.0.0.1:${peerPort}`,
        'initial-cluster': `kubeloom=http://127.0.0.1:${peerPort}`,
        'unsafe-no-fsync': 'true',
        'log-level': 'warn',
      },
      options.etcdArgs,
    );
    const etcd = startProcess('etcd', etcdBin, etcdArgs, path.join(dir, 'etcd.log'));
    started.push(etcd);
    try {
      await waitUntil('etcd /health reported healthy', etcd, startTimeoutMs, options.signal, async () => {
        const res = await get(`${etcdUrl}/health`);
        return res.status === 200 && res.body.includes('"health":"true"');
      });
    } catch (err) {
      if (isPortClash(etcd)) throw new PortClashError();
      throw err;
    }

    // kube-apiserver
    const server = `https://127.0.0.1:${apiPort}`;
    const apiArgs = mergeFlags(
      {
        'etcd-servers': etcdUrl,
        'bind-address': '127.0.0.1',
        'secure-port': String(apiPort),
        'advertise-address': '127.0.0.1',
        'endpoint-reconciler-type': 'none',
        'cert-dir': pki,
        'tls-cert-file': files.servingCert,
        'tls-private-key-file': files.servingKey,
        'client-ca-file': files.ca,
        'authorization-mode': 'RBAC',
        'service-account-issuer': `${server}/`,
        'service-account-key-file': files.saPub,
        'service-account-signing-key-file': files.saKey,
        'service-cluster-ip-range': '10.0.0.0/24',
        'disable-admission-plugins': 'ServiceAccount',
        'allow-privileged': 'true',
      },
      options.apiServerArgs,
    );
    const apiServer = startProcess(
      'kube-apiserver',
      apiServerBin,
      apiArgs,
      path.join(dir, 'kube-apiserver.log'),
    );
    started.push(apiServer);
    const tls = { ca: ca.certPem, cert: admin.certPem, key: admin.keyPem };
    try {
      await waitUntil(
        'kube-apiserver /healthz returned 200',
        apiServer,
        startTimeoutMs,
        options.signal,
        async () => {
          const res = await get(`${server}/healthz`, tls);
          return res.status === 200;
        },
      );
      await waitUntil(
        'the default namespace to exist',
        apiServer,
        startTimeoutMs,
        options.signal,
        async () => {
          const res = await get(`${server}/api/v1/namespaces/default`, tls);
          return res.status === 200;
        },
      );
    } catch (err) {
      if (isPortClash(apiServer)) throw new PortClashError();
      throw err;
    }
    const versionRes = await get(`${server}/version`, tls);
    const version = JSON.parse(versionRes.body) as ServerVersion;

    const kubeconfigPath = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml(server, ca.certPem, 'admin', admin.certPem, admin.keyPem), {
      mode: 0o600,
    });
    const plane: ControlPlane = {
      server,
      kubeConfig: kubeConfigFor(server, ca.certPem, 'admin', admin.certPem, admin.keyPem),
      kubeconfigPath,
      etcdUrl,
      dir,
      version: { gitVersion: version.gitVersion, major: version.major, minor: version.minor },
      caPem: ca.certPem,
      processes: {
        etcd: { pid: etcd.pid, ports: [etcdPort, peerPort], logFile: etcd.logFile },
        apiServer: { pid: apiServer.pid, ports: [apiPort], logFile: apiServer.logFile },
      },
      userKubeConfig(name, groups = []) {
        const pair = ca.issue({ commonName: name, organizations: groups, usage: 'client' });
        return kubeConfigFor(server, ca.certPem, name, pair.certPem, pair.keyPem);
      },
      stop,
      [Symbol.asyncDispose]: stop,
    };
    return plane;
  } catch (err) {
    await stop();
    throw err;
  }
}
