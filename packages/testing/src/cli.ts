/**
 * The `kubeloom-testing` command (bin of `@kubeloom/testing`):
 *
 *   npx kubeloom-testing assets [--lean | <binary>...]
 *
 * builds the control-plane binaries (etcd, kube-apiserver, kubectl, kube-controller-manager,
 * kube-scheduler, kwok; `--lean`: the first three) from the Go module proxy with the recipe
 * shipped in this package (`control-plane/`: wrapper Go modules and `build.sh`) into kubeloom's
 * cache, where `findBinary` looks, unless they are already there, and prints that directory as its
 * last line.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ASSETS_COMMAND, goPlatform, kubeloomAssetsDirectory } from './binaries.ts';
import { ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION } from './versions.ts';

/** Where the command writes, and the environment it reads; tests replace them. */
export interface CliOptions {
  /** Receives normal output. Default: `process.stdout`. */
  readonly stdout?: (text: string) => void;
  /** Receives usage and error messages. Default: `process.stderr`. */
  readonly stderr?: (text: string) => void;
  /** The environment. Default: `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Every binary the recipe builds, in build order. */
const ASSET_BINARIES = [
  'etcd',
  'kube-apiserver',
  'kubectl',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
] as const;

/** The binaries of the lean plane (and kubectl), what `assets --lean` builds. */
const LEAN_BINARIES = ['etcd', 'kube-apiserver', 'kubectl'] as const;

/** The directory holding the binaries recipe: `control-plane/` beside `src/` and `dist/`. */
export const RECIPE_DIRECTORY = path.resolve(import.meta.dirname, '..', 'control-plane');

/** The usage text, naming the versions built and where they go. */
function usage(env: NodeJS.ProcessEnv = process.env): string {
  return [
    'Usage: kubeloom-testing <command>',
    '',
    'Commands:',
    '  assets [--lean | <binary>...]',
    `           Build etcd v${ETCD_VERSION}, kube-apiserver, kubectl, kube-controller-manager and`,
    `           kube-scheduler v${KUBERNETES_VERSION} and kwok v${KWOK_VERSION} from the Go module proxy`,
    '           (needs Go >= 1.26 and bash; on 2 cores about 5 minutes for the lean plane and 12 for',
    '           everything, once), unless they are already built, into',
    `           ${kubeloomAssetsDirectory(env)}`,
    '           where @kubeloom/testing finds them. --lean builds only what the default plane',
    `           needs (${LEAN_BINARIES.join(', ')}); naming binaries builds just those.`,
    '           The last line printed is that directory:',
    `             export KUBEBUILDER_ASSETS="$(${ASSETS_COMMAND} | tail -n1)"`,
    '  help     Print this text.',
    '',
  ].join('\n');
}

/**
 * Runs the command line `argv` (without `node` and the script) and resolves with the exit code:
 * 0 on success, 1 when the build failed, 2 for a wrong command line.
 */
export async function main(argv: readonly string[], options: CliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => process.stderr.write(text));
  const env = options.env ?? process.env;
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    stdout(usage(env));
    return 0;
  }
  if (command === undefined) {
    stderr(`kubeloom-testing: no command given.\n\n${usage(env)}`);
    return 2;
  }
  if (command !== 'assets') {
    stderr(`kubeloom-testing: unknown command "${command}".\n\n${usage(env)}`);
    return 2;
  }
  const binaries = assetArguments(rest);
  if (typeof binaries === 'string') {
    stderr(`kubeloom-testing: ${binaries}\n\n${usage(env)}`);
    return 2;
  }
  return await buildAssets(binaries, env, stderr);
}

/** The binaries `assets` was asked for, or what is wrong with its arguments. */
function assetArguments(args: readonly string[]): readonly string[] | string {
  if (args.length === 0) return ASSET_BINARIES;
  if (args.includes('--lean')) {
    return args.length === 1 ? LEAN_BINARIES : '"assets --lean" takes no other arguments.';
  }
  const known: readonly string[] = ASSET_BINARIES;
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length > 0) {
    return `"assets" does not know "${unknown.join('", "')}"; it builds ${ASSET_BINARIES.join(', ')} (--lean: ${LEAN_BINARIES.join(', ')}).`;
  }
  return args;
}

async function buildAssets(
  binaries: readonly string[],
  env: NodeJS.ProcessEnv,
  stderr: (text: string) => void,
): Promise<number> {
  const [goos, goarch] = goPlatform().split('-');
  const script = path.join(RECIPE_DIRECTORY, 'build.sh');
  // build.sh writes progress to stderr and only the directory to stdout: both pass through.
  const child = spawn('bash', [script, ...binaries], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...env, KUBELOOM_ASSETS_DIR: kubeloomAssetsDirectory(env), GOOS: goos, GOARCH: goarch },
  });
  const result = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  if (result.error) {
    stderr(
      `kubeloom-testing: cannot run ${script} with bash (${result.error.message}). ` +
        'Building the control-plane binaries needs bash and Go >= 1.26 on PATH; on Windows, use WSL.\n',
    );
    return 1;
  }
  if (result.code !== 0) {
    stderr(
      `kubeloom-testing: building the control-plane binaries failed (exit ${result.code}); see the ` +
        `messages above. Re-run \`${ASSETS_COMMAND}\` after fixing the cause, or point ` +
        'KUBEBUILDER_ASSETS at existing envtest binaries instead.\n',
    );
    return 1;
  }
  return 0;
}
