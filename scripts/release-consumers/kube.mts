// A consumer of @kubeloom/kube installed alone from the registry: creates a ConfigMap in the
// namespace argv[3] on the real control plane (kubeconfig argv[2]) and sees it in an informer's cache.
import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';

const [kubeconfigPath, namespace] = process.argv.slice(2);
const name = `from-npm-node${process.versions.node.split('.')[0]}`; // one per Node the test runs it on
// No `await using` here: Node 22 does not parse it (Node 24 does); dispose in `finally` instead.
const kube = createKubeClient({ kubeconfigPath, logger: noopLogger });
try {
  const version = await kube.serverVersion();
  await kube.api.create(builtins.ConfigMap, {
    metadata: { name, namespace },
    data: { via: 'kube' },
  });
  const configMaps = kube.informer(builtins.ConfigMap, { namespace });
  const stop = new AbortController();
  const synced = await kube.runAndWait(stop.signal);
  const names = configMaps.store.list().map((cm) => cm.metadata?.name);
  stop.abort();
  if (!synced || !names.includes(name)) throw new Error(`not in the cache: ${names.join(', ')}`);
  console.log(JSON.stringify({ ok: true, version: version.gitVersion, names }));
} finally {
  await kube[Symbol.asyncDispose]();
}
