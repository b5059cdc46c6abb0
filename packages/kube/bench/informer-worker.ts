/**
 * One measurement of packages/kube/bench/informer.bench.ts, in its own process so heap figures
 * are not polluted by other variants and JIT state is never shared. Prints one JSON line.
 *
 * argv: <variant> <kind: configmaps|pods> <kubeconfig> <namespace> sync <expected count>
 *       <variant> configmaps <kubeconfig> <namespace> watch <startRV> <events>
 *
 * Variants: `floor` (paginated raw HTTP list + JSON.parse into a Map), `floor-strip` (the same,
 * also deleting `metadata.managedFields` as kubeloom's default transform does), `client-node`
 * (its informer), `kubeloom`, and `base` (kubeloom loaded from the sources in
 * `KUBELOOM_BENCH_BASE`, another commit's `packages/kube/src`, for a same-run before/after).
 *
 * Every variant times the same span: from before the informer (or list) starts to the moment
 * every object is cached and handed to an add handler (sync), or to the last replayed event
 * (watch). Sync excludes the watch connection for both informers (client-node's `start()` also
 * awaits the watch request, so its span ends at the last initial add instead); watch counts the
 * connection for both. CPU is `process.cpuUsage()` over the same span.
 *
 * `KUBELOOM_BENCH_PROFILE=<file.cpuprofile>` records a CPU profile of the timed span only (not of
 * the module loading before it), sampled every `KUBELOOM_BENCH_PROFILE_INTERVAL_US` µs (default
 * 1000); open it in Chrome DevTools or speedscope.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import type * as Kube from '@kubeloom/kube';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';

const [variant, kind, kubeconfigPath, namespace, mode, arg1, arg2] = process.argv.slice(2) as [
  'floor' | 'floor-strip' | 'client-node' | 'kubeloom' | 'base',
  'configmaps' | 'pods',
  string,
  string,
  'sync' | 'watch',
  string,
  string | undefined,
];

// `base` loads another commit's sources; `kubeloom` the working tree's (through the package).
const baseDir = process.env.KUBELOOM_BENCH_BASE;
if (variant === 'base' && !baseDir)
  throw new Error('variant base needs KUBELOOM_BENCH_BASE (a packages/kube/src)');
const kube = (await import(
  variant === 'base' ? path.join(baseDir!, 'index.ts') : '@kubeloom/kube'
)) as typeof Kube;
// The transport class is internal to the package; the watch benchmark subclasses it to replay.
const { HttpApiClient } = (await import(
  variant === 'base' ? path.join(baseDir!, 'http-api-client.ts') : '../src/http-api-client.ts'
)) as typeof import('../src/http-api-client.ts');

const kc = new KubeConfig();
kc.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
const resource = kind === 'pods' ? kube.builtins.Pod : kube.builtins.ConfigMap;
const gc = (globalThis as { gc?: () => void }).gc!;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU of the main (JavaScript) thread only, without V8's background GC and compiler threads. */
const threadCpuNow = (): number => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

/** The floor: what any client must do at least, a paginated list parsed into a Map. */
async function rawList(strip: boolean): Promise<Map<string, unknown>> {
  const opts: https.RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const agent = new https.Agent({ keepAlive: true, ca: opts.ca, cert: opts.cert, key: opts.key });
  const server = kc.getCurrentCluster()!.server;
  const map = new Map<string, unknown>();
  let cont: string | undefined;
  do {
    const url = new URL(
      `${server}/api/v1/namespaces/${namespace}/${kind}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
    );
    const text = await new Promise<string>((resolve, reject) => {
      https
        .get(url, { agent, headers: opts.headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const list = JSON.parse(text) as {
      metadata: { continue?: string };
      items: Array<{ metadata: { name: string; managedFields?: unknown } }>;
    };
    for (const item of list.items) {
      if (strip) delete item.metadata.managedFields;
      map.set(`${namespace}/${item.metadata.name}`, item);
    }
    cont = list.metadata.continue || undefined;
  } while (cont);
  agent.destroy();
  return map;
}

interface SyncResult {
  wallMs: number;
  cpuMs: number;
  count: number;
  bytesPerObject: number;
}

async function sync(expected: number): Promise<SyncResult> {
  const before = heap();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  let wallMs = 0;
  let cpuMs = 0;
  let count = 0;
  let keep: unknown;
  if (variant === 'kubeloom' || variant === 'base') {
    const client = kube.createKubeClient({ kubeConfig: kc, logger: kube.noopLogger });
    const informer = client.informer(resource, { namespace });
    informer.addEventHandler({ onAdd: () => void count++ });
    const stop = new AbortController();
    await client.runAndWait(stop.signal);
    wallMs = performance.now() - t0;
    cpuMs = cpuNow() - cpu0;
    keep = informer;
    stop.abort();
    client.shutdown();
  } else if (variant === 'client-node') {
    const core = kc.makeApiClient(CoreV1Api);
    const listFn =
      kind === 'pods'
        ? () => core.listNamespacedPod({ namespace })
        : () => core.listNamespacedConfigMap({ namespace });
    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/${kind}`, listFn as never);
    informer.on('add', () => {
      if (++count === expected) {
        wallMs = performance.now() - t0;
        cpuMs = cpuNow() - cpu0;
      }
    });
    await informer.start();
    count = informer.list(namespace).length;
    keep = informer;
    await informer.stop();
  } else {
    const map = await rawList(variant === 'floor-strip');
    wallMs = performance.now() - t0;
    cpuMs = cpuNow() - cpu0;
    count = map.size;
    keep = map;
  }
  const after = heap();
  void keep;
  return { wallMs, cpuMs, count, bytesPerObject: (after - before) / count };
}

interface WatchResult {
  wallMs: number;
  cpuMs: number;
  /** Main-thread CPU (see threadCpuNow). */
  threadCpuMs: number;
  events: number;
}

async function watch(startRV: string, expected: number): Promise<WatchResult> {
  let seen = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const onEvent = (): void => {
    if (++seen === expected) done();
  };
  const cpu0 = cpuNow();
  const thread0 = threadCpuNow();
  const t0 = performance.now();
  if (variant === 'kubeloom' || variant === 'base') {
    // The real transport, except that the list is empty at the start resourceVersion, so the
    // informer replays every event after it.
    class ReplayApi extends HttpApiClient {
      override async list<T extends Kube.KubeObject>(): Promise<Kube.ObjectList<T>> {
        return { metadata: { resourceVersion: startRV }, items: [] };
      }
    }
    const api = new ReplayApi(kc);
    const client = kube.createKubeClient({
      api,
      logger: kube.noopLogger,
      tuning: { watchTimeoutSeconds: [3600, 3600] },
    });
    const informer = client.informer(resource, { namespace });
    informer.addEventHandler({ onAdd: onEvent, onUpdate: onEvent, onDelete: onEvent });
    const stop = new AbortController();
    await client.runAndWait(stop.signal);
    await finished;
    const wallMs = performance.now() - t0;
    const cpuMs = cpuNow() - cpu0;
    const threadCpuMs = threadCpuNow() - thread0;
    stop.abort();
    client.shutdown();
    return { wallMs, cpuMs, threadCpuMs, events: seen };
  }
  const listFn = async () => ({ metadata: { resourceVersion: startRV }, items: [] as Kube.KubeObject[] });
  const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/${kind}`, listFn as never);
  informer.on('add', onEvent);
  informer.on('update', onEvent);
  informer.on('delete', onEvent);
  await informer.start();
  await finished;
  const wallMs = performance.now() - t0;
  const cpuMs = cpuNow() - cpu0;
  const threadCpuMs = threadCpuNow() - thread0;
  await informer.stop();
  return { wallMs, cpuMs, threadCpuMs, events: seen };
}

const profile = process.env.KUBELOOM_BENCH_PROFILE;
const session = profile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', {
    interval: Number(process.env.KUBELOOM_BENCH_PROFILE_INTERVAL_US ?? 1000),
  });
  await session.post('Profiler.start');
}
const result = mode === 'sync' ? await sync(Number(arg1)) : await watch(arg1, Number(arg2));
if (session) {
  const { profile: data } = await session.post('Profiler.stop');
  writeFileSync(profile!, JSON.stringify(data));
  session.disconnect();
}
console.log(JSON.stringify(result));
process.exit(0);
