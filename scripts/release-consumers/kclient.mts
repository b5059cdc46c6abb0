// A consumer of @kubeloom/kclient installed alone from the registry: a typed client writes a
// ConfigMap and reads it back from its cache, on the real control plane (kubeconfig argv[2], namespace argv[3]).
import { createClient } from '@kubeloom/kclient';
import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';

const [kubeconfigPath, namespace = ''] = process.argv.slice(2);
const name = `from-kclient-node${process.versions.node.split('.')[0]}`; // one per Node the test runs it on
// No `await using` here: Node 22 does not parse it (Node 24 does); dispose in `finally` instead.
const kube = createKubeClient({ kubeconfigPath, logger: noopLogger });
try {
  const configMaps = createClient(kube, builtins.ConfigMap, { fieldManager: 'consumer' });
  await configMaps.create({ metadata: { name, namespace }, data: { via: 'kclient' } });
  const stop = new AbortController();
  await kube.runAndWait(stop.signal);
  await configMaps.waitUntilSynced(stop.signal);
  const cached = configMaps.get(name, namespace);
  stop.abort();
  if (cached?.data?.via !== 'kclient') throw new Error('not in the cache');
  console.log(JSON.stringify({ ok: true, via: cached.data.via }));
} finally {
  await kube[Symbol.asyncDispose]();
}
