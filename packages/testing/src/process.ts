import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A child process started by the control-plane harness, with its log file. */
export interface ManagedProcess {
  /** The program's short name, for messages (`etcd`, `kube-apiserver`). */
  readonly name: string;
  /** The operating-system process id. */
  readonly pid: number;
  /** Where its stdout and stderr go. */
  readonly logFile: string;
  /** True once the process has exited. */
  exited(): boolean;
  /** The exit code or signal, once exited. */
  exitStatus(): string | undefined;
  /** The last `lines` lines of the log, for error messages. */
  logTail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process has exited. */
  stop(timeoutMs?: number): Promise<void>;
}

// What an ended process must not leave behind: the children still running and the temporary
// directories not yet removed. Both are cleaned up synchronously, because an `exit` listener
// cannot wait and a signal's default action leaves no time at all.
const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const signalListeners = new Map<NodeJS.Signals, () => void>();
let hooksInstalled = false;

function cleanUpNow(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/**
 * A signal that nobody else listens to kills the process (Node's default). Then, and only then,
 * clean up and let the default happen: remove our listener and re-raise. When another listener
 * exists, it owns the shutdown: the library must not take the process down under it (its async
 * cleanup would never run). The `exit` hook cleans up whenever that shutdown ends the process.
 */
function onSignal(signal: NodeJS.Signals): void {
  const ours = signalListeners.get(signal);
  if (process.listeners(signal).some((listener) => listener !== ours)) return;
  cleanUpNow();
  if (ours) process.removeListener(signal, ours);
  signalListeners.delete(signal);
  process.kill(process.pid, signal);
}

/**
 * Keeps our signal listener first, so that when it runs every other listener is still
 * registered, including `process.once` listeners, which Node removes just before calling them.
 * A listener added later with `prependListener` would otherwise run (and vanish) before ours.
 */
function keepFirst(event: string | symbol): void {
  if (!signalListeners.has(event as NodeJS.Signals)) return;
  queueMicrotask(() => {
    const ours = signalListeners.get(event as NodeJS.Signals);
    if (!ours || process.listeners(event as NodeJS.Signals)[0] === ours) return;
    process.removeListener(event as NodeJS.Signals, ours);
    process.prependListener(event as NodeJS.Signals, ours);
  });
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', cleanUpNow);
  for (const signal of SIGNALS) {
    const listener = (): void => onSignal(signal);
    signalListeners.set(signal, listener);
    process.prependListener(signal, listener);
  }
  process.on('newListener', keepFirst);
}

/**
 * Creates a temporary directory (`mkdtemp` under `parent`) that is removed synchronously when the
 * process exits or is killed by a signal nobody handles, unless {@link removeTempDir} removed it
 * first.
 */
export function createTempDir(parent: string, prefix: string): string {
  installHooks();
  const dir = mkdtempSync(path.join(parent, prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes a directory made by {@link createTempDir} (recursively; a missing one is fine). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** How {@link startProcess} runs a command. */
export interface StartProcessOptions {
  /** The name in errors and log messages (e.g. `etcd`). */
  readonly name: string;
  /** Where its stdout and stderr go (appended). */
  readonly logFile: string;
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Starts `command` with `args`, writing its output to `options.logFile`, with `options.env` added
 * to this process's environment. The child is killed
 * synchronously (SIGKILL) when this process exits or is killed by a signal nobody handles; a
 * program that handles SIGINT/SIGTERM itself keeps its children until it stops them or exits.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  { name, logFile, env = {} }: StartProcessOptions,
): ManagedProcess {
  installHooks();
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      stdio: ['ignore', fd, fd],
      detached: false,
      env: { ...process.env, ...env },
    });
  } finally {
    closeSync(fd);
  }
  let status: string | undefined;
  let spawnError: Error | undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      status = signal ? `signal ${signal}` : `exit code ${code}`;
      live.delete(child);
      resolve();
    });
    child.once('error', (err) => {
      spawnError = err;
      status = `failed to start: ${err.message}`;
      live.delete(child);
      resolve();
    });
  });
  live.add(child);
  return {
    name,
    get pid() {
      return child.pid ?? -1;
    },
    logFile,
    exited: () => status !== undefined,
    exitStatus: () => status ?? (spawnError ? spawnError.message : undefined),
    logTail(lines = 30) {
      try {
        const text = readFileSync(logFile, 'utf8');
        return text.split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
    async stop(timeoutMs = 20_000) {
      if (status !== undefined) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([
        exitedPromise.then(() => true),
        sleep(timeoutMs, false, { ref: false }),
      ]);
      if (!killed && status === undefined) {
        child.kill('SIGKILL');
        await exitedPromise;
      }
    },
  };
}

/** True when a process with this pid exists (signal 0 probe). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
