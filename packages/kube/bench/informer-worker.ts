/**
 * One measurement of packages/kube/bench/informer.bench.ts, in its own process so heap figures
 * are not polluted by other variants. Prints one JSON line.
 *
 * argv: <variant: kubeloom|client-node|floor> <kind: configmaps|pods> <kubeconfig> <namespace> <mode: sync|watch> [startRV] [events]
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { builtins, createKubeClient, type KubeObject, noopLogger, type ObjectList } from '@kubeloom/kube';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
// The transport class is internal to the package; the benchmark subclasses it to replay a list.
import { HttpApiClient } from '../src/http-api-client.ts';

const [variant, kind, kubeconfigPath, namespace, mode, startRV, eventsArg] = process.argv.slice(2) as [
  string,
  'configmaps' | 'pods',
  string,
  string,
  'sync' | 'watch',
  string | undefined,
  string | undefined,
];
const kc = new KubeConfig();
kc.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
const resource = kind === 'pods' ? builtins.Pod : builtins.ConfigMap;
const gc = (globalThis as { gc?: () => void }).gc!;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

async function rawList(): Promise<Map<string, unknown>> {
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
      items: Array<{ metadata: { name: string } }>;
    };
    for (const item of list.items) map.set(`${namespace}/${item.metadata.name}`, item);
    cont = list.metadata.continue || undefined;
  } while (cont);
  agent.destroy();
  return map;
}

async function sync(): Promise<void> {
  const before = heap();
  const t0 = performance.now();
  let keep: unknown;
  let count = 0;
  if (variant === 'kubeloom') {
    const kube = createKubeClient({ kubeConfig: kc, logger: noopLogger });
    const informer = kube.informer(resource, { namespace });
    const stop = new AbortController();
    await kube.runAndWait(stop.signal);
    count = informer.store.size;
    keep = informer;
    const ms = performance.now() - t0;
    stop.abort();
    kube.shutdown();
    const after = heap();
    report(ms, count, after - before, keep);
    return;
  }
  if (variant === 'client-node') {
    const core = kc.makeApiClient(CoreV1Api);
    const listFn =
      kind === 'pods'
        ? () => core.listNamespacedPod({ namespace })
        : () => core.listNamespacedConfigMap({ namespace });
    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/${kind}`, listFn as never);
    await informer.start();
    count = informer.list(namespace).length;
    const ms = performance.now() - t0;
    await informer.stop();
    const after = heap();
    report(ms, count, after - before, informer);
    return;
  }
  const map = await rawList();
  const ms = performance.now() - t0;
  const after = heap();
  report(ms, map.size, after - before, map);
}

function report(ms: number, count: number, bytes: number, keep: unknown): void {
  console.log(JSON.stringify({ variant, kind, ms, count, bytesPerObject: bytes / count }));
  void keep;
}

async function watch(): Promise<void> {
  const expected = Number(eventsArg);
  let seen = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const onEvent = () => {
    seen++;
    if (seen === expected) done();
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const cpuMs = () => {
    const d = process.cpuUsage(cpu0);
    return (d.user + d.system) / 1000;
  };
  if (variant === 'kubeloom') {
    // The informer lists first; give it an empty list at the start RV so it replays every event after it.
    // The real transport, except that the list is empty at the start resourceVersion.
    class ReplayApi extends HttpApiClient {
      override async list<T extends KubeObject>(): Promise<ObjectList<T>> {
        return { metadata: { resourceVersion: startRV }, items: [] };
      }
    }
    const api = new ReplayApi(kc);
    const http = api;
    const kube = createKubeClient({ api, logger: noopLogger, tuning: { watchTimeoutSeconds: [3600, 3600] } });
    const informer = kube.informer(resource, { namespace });
    informer.addEventHandler({ onAdd: onEvent, onUpdate: onEvent, onDelete: onEvent });
    const stop = new AbortController();
    await kube.runAndWait(stop.signal);
    await finished;
    const ms = performance.now() - t0;
    stop.abort();
    http.close();
    console.log(
      JSON.stringify({ variant, ms, cpuMs: cpuMs(), events: seen, eventsPerSecond: (seen / ms) * 1000 }),
    );
  } else {
    const listFn = async () => ({ metadata: { resourceVersion: startRV }, items: [] as KubeObject[] });
    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/${kind}`, listFn as never);
    informer.on('add', onEvent);
    informer.on('update', onEvent);
    informer.on('delete', onEvent);
    await informer.start();
    await finished;
    const ms = performance.now() - t0;
    await informer.stop();
    console.log(
      JSON.stringify({ variant, ms, cpuMs: cpuMs(), events: seen, eventsPerSecond: (seen / ms) * 1000 }),
    );
  }
}

await (mode === 'sync' ? sync() : watch());
process.exit(0);
