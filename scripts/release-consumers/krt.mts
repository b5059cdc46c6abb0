// A consumer of @kubeloom/krt installed alone from the registry: a collection derived from the
// Namespaces of the real control plane (kubeconfig argv[2]) contains the namespace argv[3].
import { collection, informer } from '@kubeloom/krt';
import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';

const [kubeconfigPath, namespace = ''] = process.argv.slice(2);
// No `await using` here: Node 22 does not parse it (Node 24 does); dispose in `finally` instead.
const kube = createKubeClient({ kubeconfigPath, logger: noopLogger });
try {
  const stop = new AbortController();
  const { signal } = stop;
  const namespaces = informer(kube, builtins.Namespace, { signal, name: 'namespaces' });
  const names = collection(
    namespaces,
    (_ctx, ns) => ({ metadata: { name: `${ns.metadata?.name}` }, phase: ns.status?.phase }),
    { signal, name: 'names' },
  );
  await kube.runAndWait(signal);
  await names.waitUntilSynced(signal);
  const found = names.list().some((n) => n.metadata.name === namespace);
  stop.abort();
  if (!found) throw new Error(`${namespace} not in the derived collection`);
  console.log(JSON.stringify({ ok: true, found }));
} finally {
  await kube[Symbol.asyncDispose]();
}
