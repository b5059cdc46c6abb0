import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import type { CertificatePair } from '../certs.ts';
import type { ManagedProcess } from '../process.ts';

// What starting the control plane's processes shares: flags, readiness polling, kubeconfigs.

/** Thrown when the control plane cannot start; the message includes the failing process's log tail. */
export class ControlPlaneStartError extends Error {
  /** Creates the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ControlPlaneStartError';
  }
}

/** A process lost a race for its port: the whole start is retried with new ports. */
export class PortClashError extends Error {}

export function parseDurationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number.parseFloat(m[1]!);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000;
}

export function mergeFlags(
  defaults: Record<string, string | undefined>,
  extra: readonly string[] = [],
): string[] {
  const merged = new Map<string, string | undefined>(Object.entries(defaults));
  for (const arg of extra) {
    if (!arg.startsWith('--')) throw new TypeError(`control-plane flag "${arg}" must look like --name=value`);
    const eq = arg.indexOf('=');
    if (eq === -1) merged.set(arg.slice(2), undefined);
    else merged.set(arg.slice(2, eq), arg.slice(eq + 1));
  }
  return [...merged].map(([k, v]) => (v === undefined ? `--${k}` : `--${k}=${v}`));
}

export function defaultRoot(): string {
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

/** How long {@link waitUntil} waits, and for what. */
export interface ReadinessWait {
  /** What is awaited, for the errors (e.g. `etcd /health reported healthy`). */
  readonly description: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Polls `probe` until it returns true; fails fast when `proc` exits, and with its log tail on
 * timeout.
 */
export async function waitUntil(
  proc: ManagedProcess,
  { description: what, timeoutMs, signal }: ReadinessWait,
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

export function isPortClash(proc: ManagedProcess): boolean {
  return /address already in use/i.test(proc.logTail(60));
}

export function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/** The cluster a kubeconfig points at: its URL and the CA that signed its serving certificate. */
export interface TestCluster {
  readonly server: string;
  readonly caPem: string;
}

/** A client-certificate kubeconfig for `user` of `cluster`. */
export function kubeConfigFor(
  { server, caPem }: TestCluster,
  user: string,
  { certPem, keyPem }: CertificatePair,
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

/** {@link kubeConfigFor} as a kubeconfig file. */
export function kubeconfigYaml(
  { server, caPem }: TestCluster,
  user: string,
  { certPem, keyPem }: CertificatePair,
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
