/**
 * Runs `signal-child.ts` in a separate Node process, sends it a signal once it is
 * ready, and reports how it ended. Shared by `process.test.ts` and `process.integration.test.ts`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { processExists } from '../src/process.ts';
import { waitFor } from '../src/wait-for.ts';

/** How a signalled child program ended. */
export interface SignalRun {
  /** The temp directory and the child pids it reported when ready. */
  readonly ready: { readonly dir: string; readonly pids: readonly number[] };
  /** Its whole stdout and stderr. */
  readonly stdout: string;
  readonly stderr: string;
  /** Its exit code, or the signal that killed it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How {@link runSignalChild} runs a scenario. */
export interface SignalChildOptions {
  /** Sent once the program printed `ready`. */
  readonly signal: NodeJS.Signals;
  /** The directory the program makes its temporary directories in. */
  readonly root: string;
  /** The bound of each wait (default 60 s). */
  readonly timeoutMs?: number;
}

/** Runs `scenario`, sends `options.signal` once it printed `ready`, and waits until it has exited. */
export async function runSignalChild(
  scenario: string,
  { signal, root, timeoutMs = 60_000 }: SignalChildOptions,
): Promise<SignalRun> {
  const program = path.join(import.meta.dirname, 'signal-child.ts');
  const child = spawn(process.execPath, ['--conditions=@kubeloom/source', program, scenario, signal, root], {
    cwd: path.dirname(import.meta.dirname),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.once('close', (code, sig) => {
    ended = { code, signal: sig };
  });
  try {
    const line = await waitFor(
      `the ${scenario} program to print "ready"`,
      () => {
        if (ended) throw new Error(`it exited early (${JSON.stringify(ended)}): ${stderr}`);
        return stdout.split('\n').find((l) => l.startsWith('ready '));
      },
      { timeoutMs },
    );
    const ready = JSON.parse(line.slice('ready '.length)) as SignalRun['ready'];
    child.kill(signal);
    const end = await waitFor(`the ${scenario} program to exit after ${signal}`, () => ended, { timeoutMs });
    return { ready, stdout, stderr, ...end };
  } finally {
    if (!ended) child.kill('SIGKILL');
  }
}

/**
 * True when `pid` no longer runs. A killed process whose parent is gone may stay a zombie until
 * the (container's) init reaps it; a zombie runs nothing and holds no memory, so it counts as gone.
 */
export function processGone(pid: number): boolean {
  if (!processExists(pid)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return !processExists(pid);
  }
}
