/**
 * `pnpm demo`: uses $KUBECONFIG when set, otherwise starts a local control plane; creates a
 * namespace and a few ConfigMaps, watches them through a kubeloom informer, lists them, and
 * stops cleanly. (The egress-gateway operator will take this over.)
 */

import { builtins, createKubeClient, type KubeClient } from '@kubeloom/kube';
import { type ControlPlane, startControlPlane } from '@kubeloom/testing';

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

let plane: ControlPlane | undefined;
let kube: KubeClient;
if (process.env.KUBECONFIG) {
  console.log(`using $KUBECONFIG (${process.env.KUBECONFIG})`);
  kube = createKubeClient();
} else {
  console.log('starting a local control plane (etcd + kube-apiserver)…');
  const started = Date.now();
  plane = await startControlPlane({ signal: stop.signal });
  console.log(
    `control plane ${plane.version.gitVersion} at ${plane.server} ready in ${Date.now() - started} ms`,
  );
  console.log(`kubectl: kubectl --kubeconfig ${plane.kubeconfigPath} get configmaps -A`);
  kube = createKubeClient({ kubeConfig: plane.kubeConfig });
}

let namespace: string | undefined;
try {
  const version = await kube.serverVersion();
  const ns = await kube.api.create(builtins.Namespace, {
    metadata: { generateName: 'kubeloom-demo-' },
  });
  namespace = ns.metadata!.name!;
  console.log(`server ${version.gitVersion}; created namespace ${namespace}`);

  const informer = kube.informer(builtins.ConfigMap, { namespace });
  informer.addEventHandler({
    onAdd: (cm, initial) =>
      console.log(`  informer: add ${cm.metadata?.name}${initial ? ' (initial list)' : ''}`),
    onUpdate: (_old, cm) =>
      console.log(`  informer: update ${cm.metadata?.name} → ${JSON.stringify(cm.data)}`),
  });
  await kube.runAndWait(stop.signal);

  for (const color of ['red', 'green', 'blue']) {
    await kube.api.create(builtins.ConfigMap, { metadata: { name: color, namespace }, data: { color } });
  }
  await kube.api.patch(
    { resource: builtins.ConfigMap, name: 'green', namespace },
    { data: { color: 'lime' } },
    { type: 'merge' },
  );
  const deadline = Date.now() + 10_000;
  while (informer.store.size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

  const list = await kube.api.list(builtins.ConfigMap, { namespace });
  console.log(`listed ${list.items.length} ConfigMaps in ${namespace}:`);
  for (const cm of list.items) console.log(`  ${cm.metadata?.name}: ${JSON.stringify(cm.data)}`);
  const h = informer.health();
  console.log(`informer health: synced=${h.synced} objects=${h.objects} lists=${h.lists} errors=${h.errors}`);
} finally {
  // Leave nothing behind in a real cluster (a throwaway control plane is deleted whole).
  if (namespace && !plane) await kube.api.delete(builtins.Namespace, namespace).catch(() => undefined);
  stop.abort();
  await kube[Symbol.asyncDispose](); // informers stopped and waited for, connections closed
  await plane?.[Symbol.asyncDispose]();
  console.log(plane ? 'control plane stopped' : 'done');
}
