import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
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

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // An aborted test run (exit, Ctrl-C, a CI timeout's SIGTERM) must not leave etcd or
  // kube-apiserver behind. For signals, kill the children, then let the signal take its default
  // course (re-raised once our listener is gone) unless someone else handles it.
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAll();
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/** Starts `command` with `args`, writing its output to `logFile`. */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  logFile: string,
): ManagedProcess {
  installExitHook();
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd], detached: false });
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
