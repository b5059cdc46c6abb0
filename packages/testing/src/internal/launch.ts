import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
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

export async function waitUntil(
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

export function isPortClash(proc: ManagedProcess): boolean {
  return /address already in use/i.test(proc.logTail(60));
}

export function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

export function kubeConfigFor(
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

export function kubeconfigYaml(
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
