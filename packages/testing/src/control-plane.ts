import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { findBinary } from './binaries.ts';
import { createCertificateAuthority, serviceAccountKeyPair } from './certs.ts';
import {
  type InClusterEnv,
  requestServiceAccountToken,
  type ServiceAccountTokenOptions,
  tokenKubeConfig,
  writeInClusterFiles,
} from './identities.ts';
import { get } from './internal/http.ts';
import {
  ControlPlaneStartError,
  defaultRoot,
  isPortClash,
  kubeConfigFor,
  kubeconfigYaml,
  mergeFlags,
  PortClashError,
  parseDurationMs,
  waitUntil,
} from './internal/launch.ts';
import { freePort } from './ports.ts';
import { createTempDir, type ManagedProcess, removeTempDir, startProcess } from './process.ts';
import {
  findWorkloadsBinaries,
  startWorkloads,
  type Workloads,
  type WorkloadsBinaries,
  type WorkloadsOptions,
} from './workloads.ts';

export { ControlPlaneStartError } from './internal/launch.ts';

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
  /**
   * Also run workloads: kube-controller-manager (every default controller), kube-scheduler and
   * kwok simulating `nodes` Nodes, so Deployments get Pods that become Running and Ready,
   * garbage collection and namespace deletion finish, and ServiceAccounts get their tokens.
   * Needs the binaries `npx kubeloom-testing assets` builds. Unset (default): the lean plane,
   * etcd and kube-apiserver only.
   */
  readonly workloads?: WorkloadsOptions;
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

/** A process of the control plane, so tests can check that `stop()` leaves nothing behind. */
export interface ControlPlaneProcess {
  /** The operating-system process id. */
  readonly pid: number;
  /** The ports it listens on. */
  readonly ports: readonly number[];
  /** Where its output goes (inside {@link ControlPlane.dir}). */
  readonly logFile: string;
}

/**
 * A running etcd + kube-apiserver pair, plus kube-controller-manager, kube-scheduler and kwok when
 * started with {@link ControlPlaneOptions.workloads}. Stop it with {@link ControlPlane.stop}.
 */
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
    readonly etcd: ControlPlaneProcess;
    readonly apiServer: ControlPlaneProcess;
    /** Only with {@link ControlPlaneOptions.workloads}. */
    readonly controllerManager?: ControlPlaneProcess;
    /** Only with {@link ControlPlaneOptions.workloads}. */
    readonly scheduler?: ControlPlaneProcess;
    /** Only with {@link ControlPlaneOptions.workloads}. */
    readonly kwok?: ControlPlaneProcess;
  };
  /** The names of the simulated Nodes (`kwok-node-0`, ...); empty on the lean plane. */
  readonly nodes: readonly string[];
  /**
   * A client configuration for another user, authenticated by a client certificate
   * (`CN=name`, `O=groups`). Users need no registration: RBAC decides what they may do.
   */
  userKubeConfig(name: string, groups?: readonly string[]): KubeConfig;
  /**
   * A client configuration holding a bound token for the ServiceAccount `namespace/name`, from the
   * TokenRequest API: code using it has exactly the RBAC granted to that ServiceAccount (user
   * `system:serviceaccount:<namespace>:<name>`). The ServiceAccount must exist. Works on both planes.
   */
  serviceAccountKubeConfig(
    namespace: string,
    name: string,
    options?: ServiceAccountTokenOptions,
  ): Promise<KubeConfig>;
  /**
   * Lays out the files a Pod of the ServiceAccount `namespace/name` sees (a bound `token`, `ca.crt`,
   * `namespace`) in a directory inside {@link ControlPlane.dir}, and returns it with the
   * environment (`KUBERNETES_SERVICE_HOST`/`_PORT`), so a process starts with in-cluster
   * configuration exactly as in a Pod: client-node's `loadFromCluster(pathPrefix)`.
   */
  inClusterEnv(namespace: string, name: string, options?: ServiceAccountTokenOptions): Promise<InClusterEnv>;
  /** Stops the apiserver, then etcd (SIGTERM, then SIGKILL), and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
  /** Same as {@link ControlPlane.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
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
 * Caveats of this lean plane (the default): there is no controller-manager, scheduler or kubelet.
 * Namespaces never finish terminating, garbage collection never runs, Deployments never get Pods.
 * Isolate tests by namespace ({@link createTestNamespace}) rather than by deleting things. With
 * {@link ControlPlaneOptions.workloads} the plane also runs kube-controller-manager,
 * kube-scheduler and kwok's simulated Nodes, and is ready once the Nodes are Ready and the
 * controllers act.
 *
 * @example
 * {@includeCode ./control-plane.integration.test.ts#own-plane}
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const etcdBin = findBinary('etcd', options);
  const apiServerBin = findBinary('kube-apiserver', options);
  const workloads = options.workloads ? findWorkloadsBinaries(options.workloads, options) : undefined;
  const attempts = options.attempts ?? 5;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await startOnce({ etcd: etcdBin, apiServer: apiServerBin, workloads }, options);
    } catch (err) {
      lastError = err;
      if (!(err instanceof PortClashError)) throw err;
    }
  }
  throw new ControlPlaneStartError(`could not find free ports after ${attempts} attempts`, {
    cause: lastError,
  });
}

interface Binaries {
  readonly etcd: string;
  readonly apiServer: string;
  readonly workloads: WorkloadsBinaries | undefined;
}

async function startOnce(binaries: Binaries, options: ControlPlaneOptions): Promise<ControlPlane> {
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
    // the workloads components, the apiserver, then etcd: the reverse of the start order
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
    const etcd = startProcess(binaries.etcd, etcdArgs, { name: 'etcd', logFile: path.join(dir, 'etcd.log') });
    started.push(etcd);
    try {
      await waitUntil(
        etcd,
        { description: 'etcd /health reported healthy', timeoutMs: startTimeoutMs, signal: options.signal },
        async () => {
          const res = await get(`${etcdUrl}/health`);
          return res.status === 200 && res.body.includes('"health":"true"');
        },
      );
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
        // Without a controller-manager no namespace gets its `default` ServiceAccount, which
        // this admission plugin requires of every Pod; with one, Pods are admitted as in a cluster.
        ...(binaries.workloads ? {} : { 'disable-admission-plugins': 'ServiceAccount' }),
        'allow-privileged': 'true',
      },
      options.apiServerArgs,
    );
    const apiServer = startProcess(binaries.apiServer, apiArgs, {
      name: 'kube-apiserver',
      logFile: path.join(dir, 'kube-apiserver.log'),
    });
    started.push(apiServer);
    const tls = { ca: ca.certPem, cert: admin.certPem, key: admin.keyPem };
    try {
      await waitUntil(
        apiServer,
        {
          description: 'kube-apiserver /healthz returned 200',
          timeoutMs: startTimeoutMs,
          signal: options.signal,
        },
        async () => {
          const res = await get(`${server}/healthz`, tls);
          return res.status === 200;
        },
      );
      await waitUntil(
        apiServer,
        { description: 'the default namespace to exist', timeoutMs: startTimeoutMs, signal: options.signal },
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
    writeFileSync(kubeconfigPath, kubeconfigYaml({ server, caPem: ca.certPem }, 'admin', admin), {
      mode: 0o600,
    });
    const kubeConfig = kubeConfigFor({ server, caPem: ca.certPem }, 'admin', admin);
    let running: Workloads | undefined;
    if (binaries.workloads && options.workloads) {
      running = await startWorkloads({
        binaries: binaries.workloads,
        options: options.workloads,
        dir,
        server,
        ca,
        caFile: files.ca,
        serviceAccountKeyFile: files.saKey,
        admin: kubeConfig,
        startTimeoutMs,
        signal: options.signal,
        started: (proc) => started.push(proc),
      });
    }
    const serviceAccountKubeConfig = async (
      namespace: string,
      name: string,
      tokenOptions?: ServiceAccountTokenOptions,
    ): Promise<KubeConfig> => {
      const token = await requestServiceAccountToken(kubeConfig, { namespace, name }, tokenOptions);
      return tokenKubeConfig(
        { server, caPem: ca.certPem },
        `system:serviceaccount:${namespace}:${name}`,
        token,
      );
    };
    const plane: ControlPlane = {
      server,
      kubeConfig,
      kubeconfigPath,
      etcdUrl,
      dir,
      version: { gitVersion: version.gitVersion, major: version.major, minor: version.minor },
      caPem: ca.certPem,
      processes: {
        etcd: { pid: etcd.pid, ports: [etcdPort, peerPort], logFile: etcd.logFile },
        apiServer: { pid: apiServer.pid, ports: [apiPort], logFile: apiServer.logFile },
        ...(running
          ? {
              controllerManager: running.controllerManager,
              scheduler: running.scheduler,
              kwok: running.kwok,
            }
          : {}),
      },
      nodes: running?.nodes ?? [],
      userKubeConfig(name, groups = []) {
        const pair = ca.issue({ commonName: name, organizations: groups, usage: 'client' });
        return kubeConfigFor({ server, caPem: ca.certPem }, name, pair);
      },
      serviceAccountKubeConfig,
      async inClusterEnv(namespace, name, tokenOptions) {
        const request = () => requestServiceAccountToken(kubeConfig, { namespace, name }, tokenOptions);
        return writeInClusterFiles(
          dir,
          { server, caPem: ca.certPem, namespace, token: await request() },
          request,
        );
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
