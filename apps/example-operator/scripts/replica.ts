/**
 * Runs `kubeloom-egress-operator` as a separate Node process, started as in a Pod: in-cluster
 * configuration from a service-account directory (`@kubeloom/testing`'s `inClusterEnv`), JSON
 * logs, probes and metrics on loopback ports it reports in its log.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@kubeloom/testing';

/** A running operator process. */
export interface OperatorProcess extends AsyncDisposable {
  readonly name: string;
  readonly child: ChildProcess;
  /** Every JSON log record so far. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the exit code (or the signal) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits for a log record matching `match` (30 s bound unless given). */
  waitForLog(
    what: string,
    match: (r: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** The port a server reported (`serving health probes`, `serving metrics`). */
  port(message: string): Promise<number>;
}

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** Options of {@link startOperatorProcess}. */
export interface OperatorProcessOptions {
  /** A name for logs and the POD_NAME the process sees. */
  readonly name: string;
  /** The environment of a Pod (from `plane.inClusterEnv`), merged over a minimal base. */
  readonly env: Readonly<Record<string, string>>;
  /** Flags after the defaults (loopback servers on free ports, JSON logs, debug level). */
  readonly args?: readonly string[];
}

/** Starts the operator; it keeps running until disposed (SIGTERM, then SIGKILL after 10 s). */
export function startOperatorProcess(options: OperatorProcessOptions): OperatorProcess {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@kubeloom/source',
      MAIN,
      '--health-probe-bind-address=127.0.0.1:0',
      '--metrics-bind-address=127.0.0.1:0',
      '--log-format=json',
      '--log-level=debug',
      ...(options.args ?? []),
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        POD_NAME: options.name,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: Record<string, unknown>[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ level: 'raw', msg: line });
      }
    }
  });
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitForLog: OperatorProcess['waitForLog'] = (what, match, timeoutMs = 30_000) =>
    waitFor(`${options.name}: ${what}`, () => logs.find(match), { timeoutMs });
  return {
    name: options.name,
    child,
    logs,
    exited,
    waitForLog,
    port: async (message) => Number((await waitForLog(message, (r) => r.msg === message)).port),
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
