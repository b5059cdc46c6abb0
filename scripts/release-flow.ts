/**
 * The release flow as a maintainer runs it, on a throwaway copy of the repository: `pnpm install`,
 * `pnpm run version-packages` (`changeset version` + lockfile), `pnpm install --frozen-lockfile`,
 * `pnpm run release` (turbo build + package checks, then `changeset publish`) against a given
 * registry. Then reads back what the registry serves: each package's tarball and manifest.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { LAYERS } from './layers.ts';

const execFileAsync = promisify(execFile);

/**
 * The two commands of a release, as `changesets/action` runs them in
 * `.github/workflows/release.yml` (its `version` and `publish` inputs;
 * `scripts/release-workflow.test.ts` checks they agree): version the packages, then publish.
 */
export const RELEASE_COMMANDS = {
  /** `changeset version` and the lockfile update (root package.json's `version-packages`). */
  version: ['pnpm', 'run', 'version-packages'],
  /** turbo build and package checks, then `changeset publish` (root package.json's `release`). */
  publish: ['pnpm', 'run', 'release'],
} as const;

/** What the registry serves for one published package. */
export interface PublishedPackage {
  /** npm name, `@kubeloom/kube`. */
  readonly name: string;
  /** Folder in the repository, `packages/kube`. */
  readonly dir: string;
  /** The manifest inside the published tarball. */
  readonly manifest: PublishedManifest;
  /** Paths inside the tarball, without the `package/` prefix. */
  readonly files: readonly string[];
  /** The tarball's size in bytes. */
  readonly tarballBytes: number;
  /** `dist.unpackedSize` as the registry reports it (bytes), or the sum of the files' sizes. */
  readonly unpackedBytes: number;
  /** The package's CHANGELOG.md in the versioned copy, or undefined when none was written. */
  readonly changelog: string | undefined;
}

/** The fields of a published manifest that the checks read. */
export interface PublishedManifest {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly license?: string;
  readonly homepage?: string;
  readonly bugs?: { readonly url?: string };
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
  readonly engines?: Record<string, string>;
  readonly files?: readonly string[];
  readonly private?: boolean;
  readonly publishConfig?: Record<string, unknown>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly bin?: Record<string, string>;
}

/** The outcome of {@link runReleaseFlow}. */
export interface ReleaseFlowResult {
  /** The versioned copy of the repository. */
  readonly copy: string;
  /** Every package that the flow published, in stack order. */
  readonly packages: readonly PublishedPackage[];
  /** Git tags in the copy after `changeset publish`. */
  readonly tags: readonly string[];
  /** Changeset files left in `.changeset/` after `changeset version` (only README.md and config.json should remain). */
  readonly changesetFilesLeft: readonly string[];
  /** Seconds per step, for the report. */
  readonly timings: Readonly<Record<string, number>>;
}

/** Options of {@link runReleaseFlow}. */
export interface ReleaseFlowOptions {
  /** The repository to copy (its tracked and untracked-but-not-ignored files). */
  readonly root: string;
  /** An empty directory for the copy. */
  readonly workDir: string;
  /** The registry URL (ending in `/`). */
  readonly registry: string;
  /** An npmrc with the registry and its auth token. */
  readonly npmrc: string;
  /** Aborting it kills the running step. */
  readonly signal?: AbortSignal | undefined;
  /** Progress lines. */
  readonly log?: ((line: string) => void) | undefined;
}

/** The packages a release publishes: every non-private package of the stack. */
export function publishableLayers(root: string): typeof LAYERS {
  return LAYERS.filter((l) => {
    const pkg = JSON.parse(readFileSync(path.join(root, l.dir, 'package.json'), 'utf8')) as {
      private?: boolean;
    };
    return pkg.private !== true;
  });
}

/** Runs a command; on failure throws with the command and the tail of its output. */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal | undefined },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      maxBuffer: 256 * 2 ** 20,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const tail = (s: string | undefined): string => (s ?? '').split('\n').slice(-40).join('\n');
    throw new Error(
      `\`${command} ${args.join(' ')}\` in ${options.cwd} failed: ${e.message.split('\n')[0]}\n${tail(e.stdout)}\n${tail(e.stderr)}`,
    );
  }
}

/** Copies the repository's files as git sees them (tracked, and untracked but not ignored) into `dest`. */
export async function copyRepository(root: string, dest: string): Promise<number> {
  const list = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
  });
  let copied = 0;
  for (const rel of new Set(list.split('\0').filter(Boolean))) {
    const from = path.join(root, rel);
    if (!existsSync(from)) continue; // deleted in the work tree
    const stat = statSync(from);
    if (!stat.isFile()) continue;
    const to = path.join(dest, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    chmodSync(to, stat.mode);
    copied++;
  }
  return copied;
}

/** Copies the repository, versions, builds and publishes it to `registry`; reads back what was published. */
export async function runReleaseFlow(options: ReleaseFlowOptions): Promise<ReleaseFlowResult> {
  const log = options.log ?? (() => {});
  const copy = path.join(options.workDir, 'repo');
  mkdirSync(copy, { recursive: true });
  const timings: Record<string, number> = {};
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    log(`release rehearsal: ${name}`);
    const out = await fn();
    timings[name] = Math.round((performance.now() - start) / 100) / 10;
    return out;
  };
  // The copy publishes to the local registry (the @kubeloom scope only); turbo's cache and the copy's build stay inside the copy.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NPM_CONFIG_USERCONFIG: options.npmrc,
    npm_config_userconfig: options.npmrc,
    CI: 'true',
    TURBO_TELEMETRY_DISABLED: '1',
    DO_NOT_TRACK: '1',
    GIT_AUTHOR_NAME: 'kubeloom release rehearsal',
    GIT_AUTHOR_EMAIL: 'rehearsal@kubeloom.invalid',
    GIT_COMMITTER_NAME: 'kubeloom release rehearsal',
    GIT_COMMITTER_EMAIL: 'rehearsal@kubeloom.invalid',
  };
  delete env.TURBO_CACHE_DIR;
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  const sh = (command: string, args: readonly string[]): Promise<string> =>
    run(command, args, { cwd: copy, env, signal: options.signal });

  await step('copy the repository', async () => {
    const n = await copyRepository(options.root, copy);
    await sh('git', ['init', '-q', '-b', 'main']);
    await sh('git', ['add', '-A']);
    await sh('git', ['commit', '-q', '-m', 'rehearsal snapshot']);
    log(`release rehearsal: ${n} files copied to ${copy}`);
  });
  await step('pnpm install (prefer-offline, from the store)', () =>
    sh('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only']),
  );
  const [versionCommand, ...versionArgs] = RELEASE_COMMANDS.version;
  await step('pnpm run version-packages (changeset version)', () => sh(versionCommand, versionArgs));
  const changesetFilesLeft = (
    await sh('git', ['ls-files', '--others', '--cached', '--exclude-standard', '.changeset'])
  )
    .split('\n')
    .filter((f) => f && existsSync(path.join(copy, f)))
    .map((f) => path.basename(f))
    .sort();
  await sh('git', ['add', '-A']);
  await sh('git', ['commit', '-q', '-m', 'Version Packages']);
  await step('pnpm install --frozen-lockfile', () =>
    sh('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only']),
  );
  const [publishCommand, ...publishArgs] = RELEASE_COMMANDS.publish;
  await step('pnpm run release (build, package checks, changeset publish)', () =>
    sh(publishCommand, publishArgs),
  );
  const tags = (await sh('git', ['tag', '--list'])).split('\n').filter(Boolean).sort();

  const packages = await step('read back the published packages', () =>
    Promise.all(
      publishableLayers(copy).map((l) =>
        readPublished({ copy, dir: l.dir, registry: options.registry, workDir: options.workDir }),
      ),
    ),
  );
  return { copy, packages, tags, changesetFilesLeft, timings };
}

async function readPublished(o: {
  copy: string;
  dir: string;
  registry: string;
  workDir: string;
}): Promise<PublishedPackage> {
  const local = JSON.parse(readFileSync(path.join(o.copy, o.dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const res = await fetch(new URL(local.name.replace('/', '%2f'), o.registry));
  if (!res.ok) throw new Error(`the registry has no ${local.name} (${res.status}): was it published?`);
  const packument = (await res.json()) as {
    versions: Record<string, { dist: { tarball: string; unpackedSize?: number } }>;
  };
  const meta = packument.versions[local.version];
  if (!meta)
    throw new Error(
      `the registry has no ${local.name}@${local.version}; it has ${Object.keys(packument.versions).join(', ')}`,
    );
  const tarball = await fetch(meta.dist.tarball);
  if (!tarball.ok) throw new Error(`downloading ${meta.dist.tarball} failed (${tarball.status})`);
  const bytes = Buffer.from(await tarball.arrayBuffer());
  const file = path.join(o.workDir, `${local.name.replace('@', '').replace('/', '-')}-${local.version}.tgz`);
  writeFileSync(file, bytes);
  const listing = await run('tar', ['-tzvf', file], { cwd: o.workDir });
  let unpacked = 0;
  const files: string[] = [];
  for (const line of listing.split('\n').filter(Boolean)) {
    // -rw-r--r-- 0/0   1234 1985-10-26 08:15 package/dist/index.js
    const m = /^\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+(.*)$/.exec(line);
    if (!m) continue;
    unpacked += Number(m[1]);
    files.push((m[2] ?? '').replace(/^package\//, ''));
  }
  const manifest = JSON.parse(
    await run('tar', ['-xzOf', file, 'package/package.json'], { cwd: o.workDir }),
  ) as PublishedManifest;
  const changelogFile = path.join(o.copy, o.dir, 'CHANGELOG.md');
  return {
    name: local.name,
    dir: o.dir,
    manifest,
    files: files.sort(),
    tarballBytes: bytes.length,
    unpackedBytes: meta.dist.unpackedSize ?? unpacked,
    changelog: existsSync(changelogFile) ? readFileSync(changelogFile, 'utf8') : undefined,
  };
}
