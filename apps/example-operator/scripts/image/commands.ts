/**
 * Running the host's commands for `image:check`: a child process that an abort kills, its output
 * kept for the error, and the Debian packages a missing command comes from, installed with apt
 * only when the command is missing (and said so).
 */

import { spawn, spawnSync } from 'node:child_process';

/** Options of {@link run}. */
export interface RunOptions {
  /** Kills the command's process group (SIGTERM, then SIGKILL after 5 s) when it aborts. */
  readonly signal?: AbortSignal | undefined;
  /** Passes the command's output through to ours (long steps: the build) instead of only keeping it. */
  readonly stream?: boolean | undefined;
  /** Fed to the command's stdin. */
  readonly input?: string | undefined;
  /** Resolve with the result instead of throwing on a non-zero exit. */
  readonly allowFailure?: boolean | undefined;
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>> | undefined;
}

/** What a command did. */
export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command args…`; throws with the tail of its output when it fails (unless `allowFailure`). */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    // Its own process group, so that an abort reaches what it started too (a build's RUN step).
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
      detached: true,
    });
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // the group is gone already
      }
    };
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.stream) process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (options.stream) process.stderr.write(d);
    });
    let killer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killGroup('SIGTERM');
      killer = setTimeout(() => killGroup('SIGKILL'), 5000);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin.end(options.input ?? '');
    child.on('error', (err) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(new Error(`${command}: ${err.message}`));
    });
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(killer);
      if (options.signal?.aborted) {
        killGroup('SIGKILL'); // whatever of its group outlived it
        return reject(options.signal.reason);
      }
      if (code === 0 || options.allowFailure) return resolve({ code, stdout, stderr });
      const tail = (stderr || stdout).trim().split('\n').slice(-15).join('\n');
      reject(new Error(`${command} ${args.slice(0, 3).join(' ')}… exited with ${code}:\n${tail}`));
    });
  });
}

/** True when `command` is on PATH. */
function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs the Debian package of every missing command with apt-get (`apt-get update` first),
 * saying which; does nothing when all are there.
 *
 * @param packages command → the Debian package that provides it
 */
export async function ensureCommands(
  packages: Readonly<Record<string, string>>,
  options: { readonly signal: AbortSignal; readonly say: (line: string) => void },
): Promise<void> {
  const missing = Object.entries(packages).filter(([command]) => !hasCommand(command));
  if (missing.length === 0) return;
  const names = [...new Set(missing.map(([, pkg]) => pkg))];
  if (!hasCommand('apt-get') || process.getuid?.() !== 0)
    throw new Error(
      `missing ${missing.map(([c]) => c).join(', ')}: install the Debian packages ${names.join(' ')} (needs root and apt-get)`,
    );
  options.say(`installing with apt-get (missing: ${missing.map(([c]) => c).join(', ')}): ${names.join(' ')}`);
  await run('apt-get', ['update', '-q'], { signal: options.signal });
  await run('apt-get', ['install', '-y', '-q', ...names], {
    signal: options.signal,
    env: { DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Seconds since `start` (a `performance.now()` value), one decimal. */
export function since(start: number): string {
  return ((performance.now() - start) / 1000).toFixed(1);
}
