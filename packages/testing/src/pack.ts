/**
 * Builds workspace packages and packs them into tarballs, serialized across processes: test files
 * running in parallel that each pack `@kubeloom/kube` would otherwise run `tsc -b` on the same
 * project at once and read each other's half-written `dist/`.
 *
 * @module
 */

import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { processExists } from './process.ts';
import { waitFor } from './wait-for.ts';

const run = promisify(execFile);

/** Options of {@link packWorkspacePackages}. */
export interface PackOptions {
  /** The workspace root (holding `node_modules/typescript`). */
  readonly root: string;
  /** Package directories relative to `root`, e.g. `packages/kube`. */
  readonly packages: readonly string[];
  /** Where the tarballs go. */
  readonly destination: string;
  /** How long to wait for another process's build and pack. Default 10 minutes. */
  readonly timeoutMs?: number | undefined;
}

/**
 * Runs `tsc -b` on the packages' `tsconfig.build.json` and `pnpm pack`s each into `destination`,
 * holding a lock (a directory under `node_modules/.cache`, released even when a step fails, and
 * taken over when its holder died). Resolves to the tarballs' paths, in `packages` order.
 *
 * @throws Error when a build or pack fails (with its output), or the lock is not free in time.
 */
export async function packWorkspacePackages(options: PackOptions): Promise<string[]> {
  const lock = path.join(options.root, 'node_modules', '.cache', 'kubeloom-pack.lock');
  await mkdir(path.dirname(lock), { recursive: true });
  await waitFor('the workspace pack lock', () => tryLock(lock), {
    timeoutMs: options.timeoutMs ?? 600_000,
    intervalMs: 100,
  });
  try {
    const dirs = options.packages.map((p) => path.join(options.root, p));
    const tsc = path.join(options.root, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-b', ...dirs.map((d) => path.join(d, 'tsconfig.build.json'))], {
      maxBuffer: 64 * 2 ** 20,
    });
    const out: string[] = [];
    for (const dir of dirs) {
      const before = new Set(await readdir(options.destination));
      await run('pnpm', ['pack', '--pack-destination', options.destination], {
        cwd: dir,
        maxBuffer: 64 * 2 ** 20,
      });
      const created = (await readdir(options.destination)).filter(
        (f) => f.endsWith('.tgz') && !before.has(f),
      );
      if (created.length !== 1)
        throw new Error(`pnpm pack in ${dir} made ${created.length} tarballs in ${options.destination}`);
      out.push(path.join(options.destination, created[0] as string));
    }
    return out;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function tryLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => 'NaN'));
    // A lock without a pid file is being taken right now; one whose holder is gone is stale.
    if (Number.isInteger(holder) && !processExists(holder)) await rm(lock, { recursive: true, force: true });
    return false;
  }
  await writeFile(path.join(lock, 'pid'), String(process.pid));
  return true;
}
