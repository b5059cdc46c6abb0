// A consumer of @kubeloom/controllers installed alone from the registry: a workqueue reconciles a
// key, and leader election acquires a Lease on the real control plane (kubeconfig argv[2], namespace argv[3]).
// No `await using` here: Node 22 does not parse it (Node 24 does); dispose in `finally` instead.
import { createLeaderElector, createQueue } from '@kubeloom/controllers';
import { createKubeClient, noopLogger } from '@kubeloom/kube';

const [kubeconfigPath, namespace = ''] = process.argv.slice(2);
const kube = createKubeClient({ kubeconfigPath, logger: noopLogger });
const stop = new AbortController();
const reconciled: string[] = [];
const queue = createQueue<string>({
  name: 'consumer',
  logger: noopLogger,
  reconciler: (key) => {
    reconciled.push(key);
  },
});
let led = false;
const elector = createLeaderElector({
  api: kube.api,
  lease: { namespace, name: 'consumer' },
  identity: 'consumer-1',
  logger: noopLogger,
  onStartedLeading: async (signal) => {
    led = true;
    queue.add(`${namespace}/lease`);
    const running = queue.run(signal);
    while (reconciled.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    await running;
  },
});
try {
  await elector.run(stop.signal);
} finally {
  await elector[Symbol.asyncDispose]();
  await queue[Symbol.asyncDispose]();
  await kube[Symbol.asyncDispose]();
}
if (!led || reconciled[0] !== `${namespace}/lease`)
  throw new Error(`led ${led}, reconciled ${reconciled.join(', ')}`);
console.log(JSON.stringify({ ok: true, led, reconciled }));
