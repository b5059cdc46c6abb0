import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';
import { startControlPlane } from '@kubeloom/testing';
const N = Number(process.env.N ?? 40000);
await using plane = await startControlPlane({ apiServerArgs: ['--watch-cache=false', '--etcd-compaction-interval=0', '--max-requests-inflight=2000', '--max-mutating-requests-inflight=1000'], startTimeoutMs: 300_000 });
const k = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
await k.api.create(builtins.Namespace, { metadata: { name: 'bw' } });
const names = Array.from({ length: 100 }, (_, i) => `w-${i}`);
for (const name of names) await k.api.create(builtins.ConfigMap, { metadata: { name, namespace: 'bw' }, data: { v: '0' } });
const start = (await k.api.list(builtins.ConfigMap, { namespace: 'bw', limit: 1 })).metadata.resourceVersion!;
let i = 0;
await Promise.all(Array.from({ length: 32 }, async () => { while (i < N) { const j = i++; await k.api.patch({ resource: builtins.ConfigMap, name: names[j % 100]!, namespace: 'bw' }, { data: { v: String(j), pad: 'p'.repeat(200) } }, { type: 'merge' }); } }));
const worker = path.join(import.meta.dirname, '..', 'informer-worker.ts');
const rounds = Number(process.env.R ?? 4);
for (let r = 0; r < rounds; r++) for (const v of r % 2 ? ['client-node', 'kubeloom'] : ['kubeloom', 'client-node']) {
  const env = { ...process.env, ...(process.env.PROF ? { KUBELOOM_BENCH_PROFILE: `/tmp/prof-${v}-${r}.cpuprofile`, KUBELOOM_BENCH_PROFILE_INTERVAL_US: '200' } : {}) };
  const out = execFileSync(process.execPath, ['--conditions=@kubeloom/source', '--expose-gc', '--max-old-space-size=8192', ...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []), worker, v, 'configmaps', plane.kubeconfigPath, 'bw', 'watch', start, String(N)], { encoding: 'utf8', env });
  const res = JSON.parse(out.trim().split('\n').pop()!);
  console.log(v, r, 'cpu/ev', ((res.cpuMs * 1000) / N).toFixed(2), 'thread/ev', ((res.threadCpuMs * 1000) / N).toFixed(2), 'wall', res.wallMs.toFixed(0));
}
