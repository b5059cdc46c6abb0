/**
 * `pnpm --filter @kubeloom/example-operator image:check`: builds the operator's image from
 * `apps/example-operator/Dockerfile` without Docker or a registry, and proves it.
 *
 * 1. Installs buildah, podman, runc and debootstrap with apt-get when one is missing (saying so).
 * 2. Makes a stand-in for the Dockerfile's base image (`./image/stand-in-base.ts`: debootstrap +
 *    Node from the npm registry, cached in ~/.cache/kubeloom/image/ after the first run) and
 *    commits it under the exact name `FROM` resolves to, in a private container storage.
 * 3. `buildah bud --pull=never` of the unchanged Dockerfile from the repository root, timed; then
 *    the same build again (every layer cached), timed.
 * 4. Checks the image: size and layers, user 65532, entrypoint, no compiler, devDependencies or
 *    test files (`./image/image-contents.ts`), `--help`.
 * 5. Runs it as in a Pod against a real control plane that runs workloads: the deploy base applied
 *    with kubectl, the container started with a read-only root filesystem and host networking,
 *    in-cluster configuration for the manifests' ServiceAccount (its RBAC exactly), leader
 *    election on; checks the entrypoint's uid, that the root filesystem refuses writes, /readyz,
 *    that metrics refuse an anonymous scrape, that an IPAMPool and an EgressGatewayPolicy reach
 *    Ready, and that SIGTERM (podman stop) ends it with status 0.
 *
 * Everything it made — containers, images, storage, temporary directories, the plane — is removed
 * at the end, also after a failure or on SIGINT/SIGTERM. Only the stand-in base's tarball stays
 * cached (`--fresh` rebuilds it). Flags: `--fresh`, `--storage-driver=overlay|vfs` (default overlay).
 * Needs root (apt-get, chroot, container storage) and the control-plane binaries
 * (`pnpm control-plane:assets`). Not part of `pnpm test`: it takes minutes and installs packages.
 */

import { chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtins, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { type ControlPlane, findBinary, startControlPlane, waitFor } from '@kubeloom/testing';
import { findCondition } from '../src/domain/conditions.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { ensureCommands, run, since } from './image/commands.ts';
import { ContainerEngine } from './image/engine.ts';
import { checkImageContents } from './image/image-contents.ts';
import { baseImageOf, standInRootfs } from './image/stand-in-base.ts';

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stdout.write(`${signal}: stopping, then cleaning up…\n`);
    stop.abort(new Error(`interrupted by ${signal}`));
  });
const { signal } = stop;

const APP = fileURLToPath(new URL('../', import.meta.url));
const ROOT = path.resolve(APP, '../..');
const DOCKERFILE = path.join(APP, 'Dockerfile');
const IMAGE = 'localhost/kubeloom/egress-operator:image-check';
const CONTAINER = `kubeloom-image-check-${process.pid}`;
const OPERATOR_NS = 'kubeloom-egress-system';
const NS = 'image-check';
const fresh = process.argv.includes('--fresh');
const driver = process.argv.includes('--storage-driver=vfs') ? 'vfs' : 'overlay';
const print = (line: string) => process.stdout.write(`${line}\n`);
const say = (line: string) => print(`image:check: ${line}`);
const figures: [string, string][] = [];
const cleanups: (() => Promise<void> | void)[] = [];

/** Times one step and records it for the summary. */
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await fn();
  figures.push([name, `${since(start)} s`]);
  return value;
}

async function main(): Promise<void> {
  await step('tools (apt-get only when missing)', () =>
    ensureCommands(
      { buildah: 'buildah', podman: 'podman', runc: 'runc', debootstrap: 'debootstrap', chroot: 'coreutils' },
      { signal, say },
    ),
  );
  const work = mkdtempSync(path.join(tmpdir(), 'kubeloom-image-check-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const engine = new ContainerEngine(path.join(work, 'engine'), driver);
  cleanups.push(() => engine.dispose());

  const base = baseImageOf(readFileSync(DOCKERFILE, 'utf8'));
  const cacheDir = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'kubeloom/image');
  if (fresh) rmSync(cacheDir, { recursive: true, force: true });
  const rootfs = await step('stand-in base: root filesystem', () =>
    standInRootfs(base, { cacheDir, workDir: path.join(work, 'base'), signal, say }),
  );
  await step(`stand-in base: committed as ${base.ref}`, async () => {
    const ctr = (await engine.buildah(['from', 'scratch'], { signal })).stdout.trim();
    const mnt = (await engine.buildah(['mount', ctr], { signal })).stdout.trim();
    await run('tar', ['--numeric-owner', '-C', mnt, '-xf', rootfs], { signal });
    await engine.buildah(['umount', ctr], { signal });
    const env = [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `NODE_VERSION=${base.nodeVersion}`,
    ];
    await engine.buildah(['config', ...env.flatMap((e) => ['--env', e]), '--cmd', '["node"]', ctr], {
      signal,
    });
    await engine.buildah(['commit', '--rm', '--quiet', ctr, base.ref], { signal });
  });

  const build = ['bud', '--pull=never', '--isolation', 'chroot', '--layers', '-f', DOCKERFILE, '-t', IMAGE];
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (ca) {
    say(`NODE_EXTRA_CA_CERTS is set: the build stage trusts ${ca} too (mounted, never in a layer)`);
    build.push(
      '-v',
      `${ca}:/run/kubeloom-build-ca.crt:ro`,
      '--build-arg',
      'NODE_EXTRA_CA_CERTS=/run/kubeloom-build-ca.crt',
    );
  }
  say('building the image (buildah bud --pull=never)…');
  await step('build, no layer cached', () => engine.buildah([...build, ROOT], { signal, stream: true }));
  await step('build again, every layer cached', () => engine.buildah([...build, ROOT], { signal }));

  await checkImage(engine, base.ref);
  await runAgainstPlane(engine);
}

async function checkImage(engine: ContainerEngine, baseRef: string): Promise<void> {
  const inspect = async (ref: string) =>
    (JSON.parse((await engine.podman(['image', 'inspect', ref], { signal })).stdout) as ImageInspect[])[0];
  const image = await inspect(IMAGE);
  const baseImage = await inspect(baseRef);
  if (!image || !baseImage) throw new Error('podman image inspect returned nothing');
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  figures.push(['image size (uncompressed)', `${mib(image.Size)} (base ${mib(baseImage.Size)})`]);
  figures.push([
    'layers',
    `${image.RootFS.Layers.length} (base ${baseImage.RootFS.Layers.length}, the Dockerfile's runtime stage ${image.RootFS.Layers.length - baseImage.RootFS.Layers.length})`,
  ]);
  check(image.Config.User === '65532:65532', `user 65532:65532 (${image.Config.User})`);
  check(
    JSON.stringify(image.Config.Entrypoint) === '["node","/app/dist/main.js"]',
    `entrypoint ${JSON.stringify(image.Config.Entrypoint)}`,
  );

  const root = (await engine.podman(['image', 'mount', IMAGE], { signal })).stdout.trim();
  try {
    const pkg = JSON.parse(readFileSync(path.join(APP, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const report = checkImageContents(root, Object.keys(pkg.devDependencies));
    for (const p of report.problems) say(`problem: ${p}`);
    check(
      report.problems.length === 0,
      `no compiler, devDependencies or test files of ours (/app: ${report.appFiles} files)`,
    );
    say(
      `  devDependencies present only as production packages' dependencies: ${report.transitive.join(', ') || 'none'}`,
    );
    say(
      `  test files inside third-party packages (theirs, left as published): ${report.thirdPartyTestFiles}`,
    );
  } finally {
    await engine.podman(['image', 'unmount', IMAGE], { allowFailure: true });
  }

  const help = await engine.podman(
    ['run', '--rm', '--network', 'host', ...engine.ulimitArgs(), IMAGE, '--help'],
    {
      signal,
    },
  );
  check(help.stdout.includes('Usage: kubeloom-egress-operator'), '--help prints the usage');
}

async function runAgainstPlane(engine: ContainerEngine): Promise<void> {
  say('starting a control plane that runs workloads (1 simulated node)…');
  const plane: ControlPlane = await step('control plane start', () =>
    startControlPlane({ workloads: { nodes: 1 }, signal }),
  );
  cleanups.push(() => plane.stop());
  const kube: KubeClient = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  cleanups.push(() => kube[Symbol.asyncDispose]());
  await run(
    findBinary('kubectl'),
    ['--kubeconfig', plane.kubeconfigPath, 'apply', '-k', path.join(APP, 'deploy')],
    {
      signal,
    },
  );

  // The files a Pod of the manifests' ServiceAccount sees, owned by its user as the kubelet does.
  const pod = await plane.inClusterEnv(OPERATOR_NS, 'kubeloom-egress-operator');
  const sa = path.join(plane.dir, 'image-check-serviceaccount');
  mkdirSync(sa);
  for (const f of ['token', 'ca.crt', 'namespace']) {
    copyFileSync(path.join(pod.serviceAccountDir, f), path.join(sa, f));
    chownSync(path.join(sa, f), 65532, 65532);
  }

  const started = performance.now();
  await engine.podman(
    [
      'run',
      '--detach',
      '--name',
      CONTAINER,
      '--read-only',
      '--network',
      'host',
      ...engine.ulimitArgs(),
      ...Object.entries({ ...pod.env, POD_NAME: CONTAINER, POD_NAMESPACE: OPERATOR_NS }).flatMap(([k, v]) => [
        '--env',
        `${k}=${v}`,
      ]),
      '--volume',
      `${sa}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
      IMAGE,
      '--leader-elect',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--log-format=json',
    ],
    { signal },
  );
  const logs = async () => {
    const out = await engine.podman(['logs', CONTAINER], { signal });
    return `${out.stdout}\n${out.stderr}`
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  const port = (message: string) =>
    waitFor(
      `operator log "${message}"`,
      async () => (await logs()).find((r) => r.msg === message)?.port as number | undefined,
      { timeoutMs: 60_000, signal },
    );
  const probes = await port('serving health probes');
  const metrics = await port('serving metrics');

  const state = JSON.parse(
    (await engine.podman(['inspect', CONTAINER], { signal })).stdout,
  ) as ContainerInspect[];
  const pid = state[0]?.State.Pid ?? 0;
  const uids = /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]?.split(/\s+/) ?? [];
  check(
    uids.length === 4 && uids.every((u) => u === '65532'),
    `the entrypoint (pid ${pid}) runs as uid 65532 (${uids.join(' ')})`,
  );
  const write = await engine.podman(
    ['exec', CONTAINER, 'node', '-e', "require('node:fs').writeFileSync('/app/written', 'x')"],
    { signal, allowFailure: true },
  );
  check(write.code !== 0 && /EROFS/.test(write.stderr), 'the root filesystem refuses writes (EROFS)');
  await waitFor(
    '/readyz 200',
    async () => (await fetch(`http://127.0.0.1:${probes}/readyz`)).status === 200,
    {
      timeoutMs: 60_000,
      signal,
    },
  );
  figures.push(['container start → /readyz 200', `${since(started)} s`]);
  check((await anonymousScrape(metrics)) === 401, 'an anonymous metrics scrape is refused (401)');

  const reconcileStart = performance.now();
  await kube.api.create(builtins.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await kube.api.create(IPAMPoolResource, {
    apiVersion: 'egress.kubeloom.dev/v1alpha1',
    kind: 'IPAMPool',
    metadata: { name: NS },
    spec: { cidrs: ['192.0.2.0/29'] },
  } satisfies IPAMPool);
  await kube.api.create(EgressGatewayPolicyResource, {
    apiVersion: 'egress.kubeloom.dev/v1alpha1',
    kind: 'EgressGatewayPolicy',
    metadata: { name: 'web', namespace: NS },
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ipamPoolRef: { name: NS },
      gateway: { replicas: 1 },
    },
  } satisfies EgressGatewayPolicy);
  const ready = await waitFor(
    'policy web Ready=True',
    async () => {
      const p = (await kube.api.get({
        resource: EgressGatewayPolicyResource,
        name: 'web',
        namespace: NS,
      })) as EgressGatewayPolicy;
      return findCondition(p.status?.conditions, 'Ready')?.status === 'True' ? p : undefined;
    },
    { timeoutMs: 180_000, signal },
  );
  const pool = (await kube.api.get({ resource: IPAMPoolResource, name: NS })) as IPAMPool;
  const poolReady = findCondition(pool.status?.conditions, 'Ready')?.status;
  check(
    poolReady === 'True' && pool.status?.allocated === 1,
    `IPAMPool Ready=${poolReady}, allocated ${pool.status?.allocated}; policy Ready=True with ${ready.status?.egressIPs?.join(', ')}`,
  );
  figures.push(['pool + policy created → policy Ready', `${since(reconcileStart)} s`]);

  const stopping = performance.now();
  await engine.podman(['stop', '--time', '15', CONTAINER], { signal });
  const exited = JSON.parse(
    (await engine.podman(['inspect', CONTAINER], { signal })).stdout,
  ) as ContainerInspect[];
  const code = exited[0]?.State.ExitCode;
  check(code === 0, `SIGTERM: exited with status ${code} after ${since(stopping)} s`);
  figures.push(['SIGTERM → exit', `${since(stopping)} s`]);
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`image check failed: ${what}`);
  say(`ok: ${what}`);
}

/** The status of a GET /metrics without credentials (the serving certificate is self-signed). */
function anonymousScrape(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

interface ImageInspect {
  readonly Size: number;
  readonly RootFS: { readonly Layers: readonly string[] };
  readonly Config: { readonly User?: string; readonly Entrypoint?: readonly string[] };
}

interface ContainerInspect {
  readonly State: { readonly Pid: number; readonly ExitCode: number };
}

const start = performance.now();
let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  console.error(`image:check: FAILED: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  const cleaning = performance.now();
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (err) {
      console.error(`image:check: cleanup: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  figures.push(['cleanup', `${since(cleaning)} s`], ['total', `${since(start)} s`]);
  const width = Math.max(...figures.map(([k]) => k.length));
  print('\nimage:check figures:');
  for (const [k, v] of figures) print(`  ${k.padEnd(width)}  ${v}`);
}
process.exitCode = failed ? 1 : 0;
