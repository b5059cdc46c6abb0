/**
 * A local npm registry for the release rehearsal: Verdaccio (a devDependency) on 127.0.0.1 with its
 * storage in a temporary directory. `@kubeloom/*` is served only from what is published to it (no
 * uplink: a name the rehearsal did not publish is a 404, never the public package); every other
 * name is proxied to the npm registry. One user is created for the run; its token is written to an
 * npmrc that publishing commands use through `NPM_CONFIG_USERCONFIG`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@kubeloom/testing';

/** A running local registry. */
export interface LocalRegistry {
  /** Its URL, ending in `/`: `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /**
   * An npmrc for publishing (`NPM_CONFIG_USERCONFIG`): `@kubeloom:registry=` this URL and the run's
   * auth token. Only the scope points here: installs of third-party packages in the workspace keep
   * using the npm registry (and pnpm's offline store), publishes and `pnpm info @kubeloom/*` come here.
   */
  readonly npmrc: string;
  /** Verdaccio's log, for error messages. */
  logTail(lines?: number): string;
  /** Stops Verdaccio and removes its storage. */
  stop(): Promise<void>;
  /** Same as {@link LocalRegistry.stop}. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link startLocalRegistry}. */
export interface LocalRegistryOptions {
  /** The workspace root (holding `node_modules/verdaccio`). */
  readonly root: string;
  /** Aborting it stops the registry. */
  readonly signal?: AbortSignal | undefined;
  /** The registry that third-party packages come from. Default: the npm registry. */
  readonly uplink?: string | undefined;
}

// Whatever happens to this process, no Verdaccio and no storage outlives it.
const live = new Map<ChildProcess, string>();
let hooked = false;
function killAllNow(): void {
  for (const [child, dir] of live) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  live.clear();
}

/** Starts Verdaccio on a free loopback port and creates the run's user; resolves once it answers. */
export async function startLocalRegistry(options: LocalRegistryOptions): Promise<LocalRegistry> {
  if (!hooked) {
    hooked = true;
    process.on('exit', killAllNow);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-registry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(path.join(dir, 'storage'));
  const uplink = options.uplink ?? 'https://registry.npmjs.org/';
  writeFileSync(
    path.join(dir, 'config.yaml'),
    `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
uplinks:
  npmjs:
    url: ${uplink}
    timeout: 60s
    max_fails: 5
packages:
  '@kubeloom/*':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
publish:
  allow_offline: false
log: { type: stdout, format: pretty, level: warn }
`,
  );
  const logFile = path.join(dir, 'verdaccio.log');
  const fd = openSync(logFile, 'a');
  const bin = path.join(options.root, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(
    process.execPath,
    [bin, '-c', path.join(dir, 'config.yaml'), '-l', `127.0.0.1:${port}`],
    {
      cwd: dir,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  closeSync(fd);
  live.set(child, dir);
  let exited: string | undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, sig) => {
      exited = sig ? `signal ${sig}` : `exit code ${code}`;
      resolve();
    });
    child.once('error', (err) => {
      exited = `failed to start: ${err.message}`;
      resolve();
    });
  });
  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (exited === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitedPromise;
        clearTimeout(timer);
      }
      live.delete(child);
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  const onAbort = (): void => void stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    await waitFor(
      `Verdaccio answering at ${url}`,
      async () => {
        if (exited !== undefined) throw new Error(`Verdaccio exited (${exited}):\n${logTail()}`);
        try {
          return (await fetch(new URL('-/ping', url), { signal: AbortSignal.timeout(5_000) })).ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 180_000, intervalMs: 250, ...(options.signal ? { signal: options.signal } : {}) },
    );
    // The run's user: Verdaccio's htpasswd plugin creates it on the first `adduser` and returns a token.
    const user = `rehearsal-${process.pid}`;
    const res = await fetch(new URL(`-/user/org.couchdb.user:${user}`, url), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: `pw-${crypto.randomUUID()}` }),
    });
    const body = (await res.json()) as { token?: string; error?: string };
    if (!res.ok || !body.token)
      throw new Error(`creating the registry user failed (${res.status}): ${JSON.stringify(body)}`);
    const npmrc = path.join(dir, 'npmrc');
    writeFileSync(npmrc, `@kubeloom:registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`, {
      mode: 0o600,
    });
    return { url, npmrc, logTail, stop, [Symbol.asyncDispose]: stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    // After start, only an explicit stop (or process exit) ends it; the caller's signal still does.
    if (options.signal?.aborted) await stop();
  }
}
