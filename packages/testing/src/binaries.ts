import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION } from './versions.ts';

/**
 * The control-plane programs that {@link findBinary} can locate: the lean plane's (`etcd`,
 * `kube-apiserver`, `kubectl`) and those of the plane that runs workloads.
 */
export type ControlPlaneBinary =
  | 'kube-apiserver'
  | 'etcd'
  | 'kubectl'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok';

/** Where {@link findBinary} looks, in order, and what it found. */
export interface BinaryLookup {
  /** The absolute path of the binary, when found. */
  readonly path?: string;
  /** Every place that was consulted, in precedence order, for error messages. */
  readonly searched: readonly string[];
}

/** Options for binary discovery. */
export interface FindBinaryOptions {
  /** A directory to consult after `KUBEBUILDER_ASSETS` (envtest's `BinaryAssetsDirectory`). */
  readonly binaryAssetsDirectory?: string;
  /** The environment to read; defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Thrown when a control-plane binary cannot be found or is not usable. */
export class ControlPlaneBinaryError extends Error {
  /** Which binary was being looked for. */
  readonly binary: ControlPlaneBinary;
  /** Creates the error; `message` already says what to do. */
  constructor(binary: ControlPlaneBinary, message: string) {
    super(message);
    this.name = 'ControlPlaneBinaryError';
    this.binary = binary;
  }
}

/** The environment variable envtest uses to point at one binary, e.g. `TEST_ASSET_KUBE_APISERVER`. */
export function testAssetVariable(binary: ControlPlaneBinary): string {
  return `TEST_ASSET_${binary.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The command that builds the control-plane binaries into {@link kubeloomAssetsDirectory}. */
export const ASSETS_COMMAND = 'npx kubeloom-testing assets';

const GO_OS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', mipsel: 'mipsle' };

/**
 * The Go name (`GOOS-GOARCH`, e.g. `linux-amd64`, `darwin-arm64`) of a Node platform and
 * architecture, defaulting to this machine's: the naming of setup-envtest's store and of
 * kubeloom's asset cache.
 */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  // Node says `ppc64` for little-endian POWER on Linux (Go's ppc64le); AIX is big-endian (ppc64).
  const goArch = arch === 'ppc64' && platform !== 'aix' ? 'ppc64le' : (GO_ARCH[arch] ?? arch);
  return `${GO_OS[platform] ?? platform}-${goArch}`;
}

/** The directory into which `npx kubeloom-testing assets` builds the binaries for this machine. */
export function kubeloomAssetsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(
    cache,
    'kubeloom',
    'kubebuilder-assets',
    `${KUBERNETES_VERSION}-etcd${ETCD_VERSION}-${goPlatform()}`,
  );
}

function setupEnvtestStore(env: NodeJS.ProcessEnv): string {
  const data = env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share');
  return path.join(data, 'kubebuilder-envtest', 'k8s');
}

function compareVersionsDesc(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < 3; i++) {
    const d = (pb[i] ?? 0) - (pa[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function checkExecutable(binary: ControlPlaneBinary, file: string, origin: string): string {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch {
    throw new ControlPlaneBinaryError(
      binary,
      `${origin} points at ${file}, which does not exist. Fix or unset it, or run ` +
        `\`${ASSETS_COMMAND}\` to build the control-plane binaries.`,
    );
  }
  if (!stat.isFile()) {
    throw new ControlPlaneBinaryError(binary, `${origin} points at ${file}, which is not a file.`);
  }
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new ControlPlaneBinaryError(
      binary,
      `${origin} points at ${file}, which is not executable (try \`chmod +x ${file}\`).`,
    );
  }
  return file;
}

/**
 * Locates a control-plane binary the way controller-runtime's envtest does, then in kubeloom's
 * own build cache:
 *
 * 1. `TEST_ASSET_KUBE_APISERVER` / `TEST_ASSET_ETCD` / `TEST_ASSET_KUBECTL` /
 *    `TEST_ASSET_KUBE_CONTROLLER_MANAGER` / `TEST_ASSET_KUBE_SCHEDULER` / `TEST_ASSET_KWOK`;
 * 2. `$KUBEBUILDER_ASSETS/<name>`;
 * 3. `options.binaryAssetsDirectory/<name>`;
 * 4. the setup-envtest store, `~/.local/share/kubebuilder-envtest/k8s/<version>-<os>-<arch>`
 *    for this machine's OS and architecture in Go's names (`goPlatform()`), newest first;
 * 5. kubeloom's cache ({@link kubeloomAssetsDirectory}), filled by `npx kubeloom-testing assets`;
 * 6. `/usr/local/kubebuilder/bin/<name>`.
 *
 * An explicitly configured location (1–3) that is wrong is an error, never skipped over.
 *
 * @throws {@link ControlPlaneBinaryError} when an explicit location is wrong, or nothing is found;
 *   the message lists every place searched and how to obtain the binaries.
 */
export function findBinary(binary: ControlPlaneBinary, options: FindBinaryOptions = {}): string {
  const lookup = lookupBinary(binary, options);
  if (lookup.path) return lookup.path;
  throw new ControlPlaneBinaryError(
    binary,
    `Cannot find the ${binary} binary. Searched:\n${lookup.searched.map((s) => `  - ${s}`).join('\n')}\n` +
      `To get the control-plane binaries, run \`${ASSETS_COMMAND}\` (builds kube-apiserver, ` +
      `kube-controller-manager and kube-scheduler v${KUBERNETES_VERSION}, etcd v${ETCD_VERSION} and ` +
      `kwok v${KWOK_VERSION} from the Go module proxy into ${kubeloomAssetsDirectory()}; needs ` +
      `Go 1.26), or point ${testAssetVariable(binary)} or KUBEBUILDER_ASSETS at existing binaries.`,
  );
}

/** Like {@link findBinary}, but reports instead of throwing when nothing is found. */
export function lookupBinary(binary: ControlPlaneBinary, options: FindBinaryOptions = {}): BinaryLookup {
  const env = options.env ?? process.env;
  const searched: string[] = [];
  const variable = testAssetVariable(binary);
  const direct = env[variable];
  searched.push(`$${variable}${direct ? ` (${direct})` : ' (unset)'}`);
  if (direct) return { path: checkExecutable(binary, path.resolve(direct), `$${variable}`), searched };

  const explicitDirs: Array<[string, string | undefined]> = [
    ['$KUBEBUILDER_ASSETS', env.KUBEBUILDER_ASSETS],
    ['binaryAssetsDirectory', options.binaryAssetsDirectory],
  ];
  for (const [origin, dir] of explicitDirs) {
    searched.push(`${origin}${dir ? ` (${path.join(dir, binary)})` : ' (unset)'}`);
    if (dir) return { path: checkExecutable(binary, path.resolve(dir, binary), origin), searched };
  }

  const store = setupEnvtestStore(env);
  const platform = goPlatform();
  searched.push(`setup-envtest store ${store}/<version>-${platform}/${binary}`);
  if (existsSync(store)) {
    // Use one version directory for every binary (never etcd from one and kube-apiserver from
    // another): kubeloom's own version first, then the newest that has the control plane.
    const versions = readdirSync(store)
      .filter((d) => d.endsWith(`-${platform}`))
      .sort(compareVersionsDesc);
    const preferred = `${KUBERNETES_VERSION}-${platform}`;
    const ordered = versions.includes(preferred)
      ? [preferred, ...versions.filter((v) => v !== preferred)]
      : versions;
    for (const v of ordered) {
      const dir = path.join(store, v);
      if (existsSync(path.join(dir, 'kube-apiserver')) && existsSync(path.join(dir, 'etcd'))) {
        const candidate = path.join(dir, binary);
        if (existsSync(candidate)) return { path: candidate, searched };
        break;
      }
    }
  }
  for (const dir of [kubeloomAssetsDirectory(env), '/usr/local/kubebuilder/bin']) {
    const candidate = path.join(dir, binary);
    searched.push(candidate);
    if (existsSync(candidate)) return { path: candidate, searched };
  }
  return { searched };
}
