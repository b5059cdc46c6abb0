/**
 * buildah and podman for `image:check`, both on one private container storage inside the run's
 * temporary directory (never the machine's `/var/lib/containers`): everything the check makes —
 * the stand-in base, the build's layers, the operator image, containers — lives there, and
 * {@link ContainerEngine.dispose} removes it all (and podman's lock file in /dev/shm, unless it
 * was there before). Builds use chroot isolation (no runtime needed,
 * the host's network); containers run with runc and cgroupfs.
 */

import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type RunOptions, type RunResult, run } from './commands.ts';

const PODMAN_LOCK = '/dev/shm/libpod_lock';

/** buildah and podman on one private storage. */
export class ContainerEngine {
  readonly #storage: string[];
  readonly #dir: string;
  /** podman's lock file in shared memory, removed at the end when podman created it for this run. */
  readonly #lockFileWasThere = existsSync(PODMAN_LOCK);

  /** @param dir an empty directory this engine owns (removed by {@link ContainerEngine.dispose}) */
  constructor(dir: string, driver: 'overlay' | 'vfs') {
    this.#dir = dir;
    this.#storage = [
      '--root',
      path.join(dir, 'storage'),
      '--runroot',
      path.join(dir, 'run'),
      '--storage-driver',
      driver,
    ];
  }

  /** `buildah <args>` on this storage. */
  buildah(args: readonly string[], options?: RunOptions): Promise<RunResult> {
    return run('buildah', [...this.#storage, ...args], options);
  }

  /** `podman <args>` on this storage. */
  podman(args: readonly string[], options?: RunOptions): Promise<RunResult> {
    return run(
      'podman',
      [
        ...this.#storage,
        '--runtime',
        'runc',
        '--cgroup-manager',
        'cgroupfs',
        '--events-backend',
        'file',
        ...args,
      ],
      options,
    );
  }

  /**
   * `podman run` limits within this process's own: podman's defaults (1048576 files, 4194304
   * processes) are more than a process without CAP_SYS_RESOURCE may set, and the runtime then fails
   * with "setrlimit: Operation not permitted". Processes capped at 16384: plenty for one Node.
   */
  ulimitArgs(): string[] {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    // "Max open files            20000                20000                files"
    const hard = (name: string) =>
      limits
        .split('\n')
        .find((l) => l.startsWith(name))
        ?.slice(name.length)
        .trim()
        .split(/\s+/)[1];
    const args: string[] = [];
    const files = hard('Max open files');
    if (files && files !== 'unlimited') args.push('--ulimit', `nofile=${files}:${files}`);
    const procs = hard('Max processes');
    const nproc = procs && procs !== 'unlimited' ? Math.min(Number(procs), 16384) : 16384;
    args.push('--ulimit', `nproc=${nproc}:${nproc}`);
    return args;
  }

  /**
   * Removes every container of this storage (releasing their mounts), unmounts what is still
   * mounted below the directory and deletes it with every image and layer in it (faster than
   * `rmi`, which takes minutes for a build's layers: the storage is this run's alone). Best effort,
   * each step independent: it runs on the way out, also after a failure or a signal.
   */
  async dispose(): Promise<void> {
    const quiet = { allowFailure: true } as const;
    await this.podman(['rm', '--all', '--force', '--time', '0'], quiet).catch(() => undefined);
    await this.buildah(['rm', '--all'], quiet).catch(() => undefined);
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[4] ?? '')
      .filter((m) => m === this.#dir || m.startsWith(`${this.#dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const m of mounts) await run('umount', ['-l', m], quiet).catch(() => undefined);
    rmSync(this.#dir, { recursive: true, force: true });
    if (!this.#lockFileWasThere) rmSync(PODMAN_LOCK, { force: true });
  }
}
