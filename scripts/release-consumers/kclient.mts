// A consumer of @kubeloom/kclient installed alone from the registry: a typed client writes a
// ConfigMap and reads it back from its cache, on the real control plane (kubeconfig argv[2], namespace argv[3]).
import { createClient } from '@kubeloom/kclient';
import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';

const [kubeconfigPath, namespace = ''] = process.argv.slice(2);
await using kube = createKubeClient({ kubeconfigPath, logger: noopLogger });
const configMaps = createClient(kube, builtins.ConfigMap, { fieldManager: 'consumer' });
await configMaps.create({ metadata: { name: 'from-kclient', namespace }, data: { via: 'kclient' } });
const stop = new AbortController();
await kube.runAndWait(stop.signal);
await configMaps.waitUntilSynced(stop.signal);
const cached = configMaps.get('from-kclient', namespace);
stop.abort();
if (cached?.data?.via !== 'kclient') throw new Error('not in the cache');
console.log(JSON.stringify({ ok: true, via: cached.data.via }));
