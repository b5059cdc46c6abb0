/**
 * Selective installs (issue 16.3): each published package alone, with plain `npm install
 * @kubeloom/<pkg>` in an empty folder outside the workspace, pointed at the local registry. Then:
 * the dependency closure (exactly the kubeloom packages below it plus declared third-party
 * dependencies, nothing else), the types of a consumer (`scripts/release-consumers/<pkg>.mts`) with
 * `module: nodenext` and with `moduleResolution: bundler`, both `skipLibCheck: false`, and that
 * consumer run on Node 22.19 and Node 24 (against the real control plane for the packages that talk
 * to one).
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { LAYERS } from './layers.ts';
import { type PublishedPackage, run } from './release-flow.ts';

/** What a user of a package that uses @kubernetes/client-node adds for `skipLibCheck: false`. */
export const TYPE_CHECK_EXTRAS: readonly string[] = ['@types/ws'];

/** The outcome for one package. */
export interface InstallResult {
  readonly name: string;
  /** Every problem found; empty when all is as intended. */
  readonly problems: readonly string[];
  /** Bytes of every file under node_modules after the plain install (the package and its closure). */
  readonly installedBytes: number;
  /** How many packages that install brought (the package included). */
  readonly installedPackages: number;
  /** The kubeloom packages installed. */
  readonly kubeloom: readonly string[];
  /** The third-party packages installed directly by kubeloom packages (their declared dependencies and peers). */
  readonly thirdPartyDirect: readonly string[];
  /** Whether `@types/node` came with the install (through `@kubernetes/client-node`). */
  readonly nodeTypes: boolean;
  /** What the type check needed beside the install ({@link TYPE_CHECK_EXTRAS} or nothing). */
  readonly typeExtras: readonly string[];
  /** Seconds per step. */
  readonly timings: Readonly<Record<string, number>>;
}

/** Options of {@link installAndCheckAll}. */
export interface InstallOptions {
  readonly root: string;
  readonly registry: string;
  /** A temp dir for the consumers (outside the workspace) and npm's cache. */
  readonly workDir: string;
  readonly packages: readonly PublishedPackage[];
  /** A control plane's kubeconfig: the consumers of kube, controllers, kclient, krt and testing use it. */
  readonly kubeconfig: string | undefined;
  /** A namespace on that control plane for the consumers' objects. */
  readonly namespace: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly log?: ((line: string) => void) | undefined;
}

/**
 * The Node binaries a consumer runs on: this one (24) and the oldest that `engines` allows, from the
 * toolchain cache that scripts/toolchain.sh fills (`~/.cache/kubeloom/toolchain/node-<version>`);
 * installed there from the npm registry (the `node-<os>-<arch>` package) when missing.
 */
export async function consumerNodes(root: string): Promise<Array<{ label: string; bin: string }>> {
  const engines = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
  ).engines.node;
  const min = engines.replace(/^>=/, '');
  const { env } = process;
  const cache = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  const dir = path.join(cache, 'kubeloom', 'toolchain', `node-${min}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const bin = path.join(dir, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    await run(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--prefix',
        dir,
        `${pkg}@${min}`,
      ],
      {
        cwd: dir,
      },
    );
    if (!existsSync(bin)) throw new Error(`installing ${pkg}@${min} into ${dir} left no ${bin}`);
  }
  return [
    { label: `node ${process.versions.node}`, bin: process.execPath },
    { label: `node ${min}`, bin },
  ];
}

/** Installs every package (in parallel), then checks each (two at a time: type checks are CPU-bound). */
export async function installAndCheckAll(o: InstallOptions): Promise<InstallResult[]> {
  const nodes = await consumerNodes(o.root);
  const cache = path.join(o.workDir, 'npm-cache');
  // First the packages nothing else depends on (their installs fetch every third-party package once,
  // into Verdaccio's storage and npm's cache), then the rest in parallel from those caches.
  const dependedOn = new Set(
    o.packages.flatMap((p) => Object.keys({ ...p.manifest.dependencies, ...p.manifest.peerDependencies })),
  );
  const tops = o.packages.filter((p) => !dependedOn.has(p.name));
  const rest = o.packages.filter((p) => dependedOn.has(p.name));
  const installs = await Promise.all(tops.map((pkg) => install(o, pkg, cache)));
  installs.push(...(await Promise.all(rest.map((pkg) => install(o, pkg, cache)))));
  const results: InstallResult[] = [];
  const queue = [...installs];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift())
      results.push(await check(o, next, { nodes, cache }));
  };
  await Promise.all([worker(), worker()]);
  return o.packages.map((p) => results.find((r) => r.name === p.name) as InstallResult);
}

interface Installed {
  readonly pkg: PublishedPackage;
  readonly dir: string;
  readonly seconds: number;
  readonly error: string | undefined;
}

function npmEnv(o: InstallOptions, cache: string, dir: string): NodeJS.ProcessEnv {
  const userconfig = path.join(dir, '..', 'empty-npmrc');
  if (!existsSync(userconfig)) writeFileSync(userconfig, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_registry: o.registry,
    npm_config_userconfig: userconfig,
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'error',
  };
  for (const k of Object.keys(env))
    if (/^npm_(package|lifecycle)_|^NPM_CONFIG_USERCONFIG$/.test(k)) delete env[k];
  return env;
}

async function install(o: InstallOptions, pkg: PublishedPackage, cache: string): Promise<Installed> {
  const dir = path.join(o.workDir, 'consumers', pkg.name.replace('@kubeloom/', ''));
  mkdirSync(dir, { recursive: true });
  const start = performance.now();
  o.log?.(`npm install ${pkg.name} in ${dir}`);
  try {
    await run('npm', ['install', pkg.name], { cwd: dir, env: npmEnv(o, cache, dir), signal: o.signal });
    return { pkg, dir, seconds: (performance.now() - start) / 1000, error: undefined };
  } catch (err) {
    return { pkg, dir, seconds: (performance.now() - start) / 1000, error: (err as Error).message };
  }
}

interface Node {
  readonly location: string; // relative to the consumer folder: node_modules/a/node_modules/b
  readonly name: string;
}

/** Node's lookup from `from` (a package location) for `name`: its own node_modules, then each parent's. */
function resolveFrom(dir: string, from: string, name: string): string | undefined {
  for (let at = from; ; at = path.dirname(path.dirname(at))) {
    const candidate = path.join(at, 'node_modules', name);
    if (existsSync(path.join(dir, candidate, 'package.json'))) return candidate;
    if (at === '' || at === '.') return undefined;
    const parent = path.dirname(path.dirname(at));
    if (parent === at) return undefined;
    if (!at.includes('node_modules')) return undefined;
  }
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Every installed package reachable from the consumer's own dependencies through production edges. */
function closure(dir: string, problems: string[]): Map<string, Manifest> {
  const reached = new Map<string, Manifest>();
  const root = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
  const todo: Node[] = [];
  const visit = (from: string, name: string, required: boolean): void => {
    const location = resolveFrom(dir, from, name);
    if (!location) {
      if (required) problems.push(`${name} (needed by ${from || 'the consumer'}) is not installed`);
      return;
    }
    if (!reached.has(location)) {
      reached.set(
        location,
        JSON.parse(readFileSync(path.join(dir, location, 'package.json'), 'utf8')) as Manifest,
      );
      todo.push({ location, name });
    }
  };
  for (const name of Object.keys(root.dependencies ?? {})) visit('', name, true);
  for (let n = todo.pop(); n; n = todo.pop()) {
    const m = reached.get(n.location) as Manifest;
    for (const d of Object.keys(m.dependencies ?? {}))
      visit(n.location, d, !(d in (m.optionalDependencies ?? {})));
    for (const d of Object.keys(m.optionalDependencies ?? {})) visit(n.location, d, false);
    for (const d of Object.keys(m.peerDependencies ?? {}))
      visit(n.location, d, m.peerDependenciesMeta?.[d]?.optional !== true);
  }
  return reached;
}

/** Every package folder under node_modules (scoped ones included, nested ones too). */
function installedLocations(dir: string, under = 'node_modules'): string[] {
  const abs = path.join(dir, under);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(path.join(abs, entry)).map((e) => `${entry}/${e}`)
      : [entry];
    for (const name of names) {
      const location = `${under}/${name}`;
      if (!existsSync(path.join(dir, location, 'package.json'))) continue;
      out.push(location, ...installedLocations(dir, `${location}/node_modules`));
    }
  }
  return out;
}

function bytesUnder(p: string): number {
  const st = lstatSync(p);
  if (st.isSymbolicLink()) return 0;
  if (!st.isDirectory()) return st.size;
  let sum = 0;
  for (const e of readdirSync(p)) sum += bytesUnder(path.join(p, e));
  return sum;
}

/** The kubeloom packages below `name` that its published manifests pull in (dependencies and peers). */
function expectedKubeloom(name: string, packages: readonly PublishedPackage[]): string[] {
  const out = new Set<string>([name]);
  const todo = [name];
  for (let n = todo.pop(); n; n = todo.pop()) {
    const m = packages.find((p) => p.name === n)?.manifest;
    for (const d of Object.keys({ ...m?.dependencies, ...m?.peerDependencies }))
      if (d.startsWith('@kubeloom/') && !out.has(d)) {
        out.add(d);
        todo.push(d);
      }
  }
  return [...out].sort();
}

async function check(
  o: InstallOptions,
  inst: Installed,
  { nodes, cache }: { nodes: ReadonlyArray<{ label: string; bin: string }>; cache: string },
): Promise<InstallResult> {
  const { pkg, dir } = inst;
  const short = pkg.name.replace('@kubeloom/', '');
  const problems: string[] = [];
  const timings: Record<string, number> = { install: Math.round(inst.seconds * 10) / 10 };
  const empty = {
    name: pkg.name,
    nodeTypes: false,
    typeExtras: [],
    installedBytes: 0,
    installedPackages: 0,
    kubeloom: [],
    thirdPartyDirect: [],
    timings,
  };
  if (inst.error) return { ...empty, problems: [`npm install failed: ${inst.error}`] };

  // The closure: what npm installed is exactly what production edges reach from the package.
  const reached = closure(dir, problems);
  const installed = installedLocations(dir);
  const extra = installed.filter((l) => !reached.has(l));
  if (extra.length > 0)
    problems.push(
      `installed but not reachable through dependencies or peers (dev-only?): ${extra.join(', ')}`,
    );
  const names = (locations: Iterable<string>): string[] =>
    [...new Set([...locations].map((l) => l.replace(/^.*node_modules\//, '')))].sort();
  const kubeloom = names(installed).filter((n) => n.startsWith('@kubeloom/'));
  const want = expectedKubeloom(pkg.name, o.packages);
  if (JSON.stringify(kubeloom) !== JSON.stringify(want))
    problems.push(`kubeloom packages installed: ${kubeloom.join(', ')}; want ${want.join(', ')}`);
  const below = new Set([pkg.name, ...(LAYERS.find((l) => l.name === pkg.name)?.allow ?? [])]);
  const above = kubeloom.filter((n) => !below.has(n));
  if (above.length > 0)
    problems.push(`pulls in kubeloom packages that are not below it in the stack: ${above.join(', ')}`);
  const dev = new Set(o.packages.flatMap((p) => Object.keys(p.manifest.devDependencies ?? {})));
  const thirdPartyDirect = new Set<string>();
  for (const [location, m] of reached) {
    if (!m.name.startsWith('@kubeloom/')) continue;
    for (const d of Object.keys({ ...m.dependencies, ...m.peerDependencies }))
      if (!d.startsWith('@kubeloom/') && resolveFrom(dir, location, d)) thirdPartyDirect.add(d);
  }
  const devOnly = names(installed).filter(
    (n) =>
      !n.startsWith('@kubeloom/') &&
      dev.has(n) &&
      ![...reached.values()].some((m) => n in { ...m.dependencies, ...m.peerDependencies }),
  );
  if (devOnly.length > 0)
    problems.push(`devDependencies of kubeloom packages installed: ${devOnly.join(', ')}`);
  const installedBytes = bytesUnder(path.join(dir, 'node_modules'));

  // Types: what a user adds for `skipLibCheck: false` (nothing else is installed). @types/node comes
  // with @kubernetes/client-node where a package needs it (the consumer names it in `types`, as any
  // Node program does since TS 6); client-node's own types import `ws` (through isomorphic-ws)
  // without depending on @types/ws, so a user of it adds @types/ws.
  let start = performance.now();
  copyFileSync(path.join(o.root, 'scripts', 'release-consumers', `${short}.mts`), path.join(dir, 'main.mts'));
  const extras = reached.has('node_modules/@kubernetes/client-node') ? TYPE_CHECK_EXTRAS : [];
  if (extras.length > 0)
    await run('npm', ['install', '--save-dev', ...extras], {
      cwd: dir,
      env: npmEnv(o, cache, dir),
      signal: o.signal,
    });
  const nodeTypes = existsSync(path.join(dir, 'node_modules', '@types', 'node', 'package.json'));
  const common = {
    target: 'es2024',
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: nodeTypes ? ['node'] : [],
  };
  const configs = {
    nodenext: { ...common, module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { ...common, module: 'esnext', moduleResolution: 'bundler' },
  };
  const tsc = path.join(o.root, 'node_modules', 'typescript', 'lib', 'tsc.js');
  for (const [mode, compilerOptions] of Object.entries(configs)) {
    writeFileSync(
      path.join(dir, `tsconfig.${mode}.json`),
      JSON.stringify({ compilerOptions, files: ['main.mts'] }, null, 2),
    );
    try {
      await run(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], { cwd: dir, signal: o.signal });
    } catch (err) {
      problems.push(`the consumer does not type-check with ${mode} resolution: ${(err as Error).message}`);
    }
  }
  timings.typecheck = Math.round((performance.now() - start) / 100) / 10;

  // Run it on each Node.
  start = performance.now();
  for (const node of nodes) {
    try {
      const out = await run(node.bin, ['main.mts', o.kubeconfig ?? '', o.namespace ?? ''], {
        cwd: dir,
        env: { ...process.env, NODE_OPTIONS: '--no-warnings' },
        signal: o.signal,
      });
      const last = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { ok?: boolean };
      if (last.ok !== true) problems.push(`the consumer on ${node.label} printed ${out.trim()}`);
    } catch (err) {
      problems.push(`the consumer fails on ${node.label}: ${(err as Error).message}`);
    }
  }
  timings.run = Math.round((performance.now() - start) / 100) / 10;
  return {
    name: pkg.name,
    problems,
    nodeTypes,
    typeExtras: extras,
    installedBytes,
    installedPackages: installed.length,
    kubeloom,
    thirdPartyDirect: [...thirdPartyDirect].sort(),
    timings,
  };
}
