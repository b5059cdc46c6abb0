import {
  type ControlPlane,
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  startControlPlane,
  uninstallCRDs,
} from '@kubeloom/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { builtins } from './builtins.ts';
import { describeApiConformance } from './conformance/index.ts';
import type { ConformanceTarget } from './conformance/target.ts';
import { createKubeClient } from './create-kube-client.ts';
import { ApiError } from './errors.ts';
import type { KubeObject } from './object.ts';

interface CrdVersions {
  spec: {
    group: string;
    names: { plural: string };
    scope: string;
    versions: Array<{ name: string; served: boolean }>;
  };
}

function realTarget(kubeConfig: KubeConfig, extra: Partial<ConformanceTarget> = {}): ConformanceTarget {
  const api = createKubeClient({ kubeConfig }).api;
  return {
    kind: 'real',
    api,
    newNamespace: () => createTestNamespace(kubeConfig, 'conformance'),
    otherClient: () => createKubeClient({ kubeConfig }).api,
    async installCrd(crd) {
      await installCRDs(kubeConfig, [crd as never]);
      // Discovery serves a new resource before its storage is ready ("storage is (re)initializing",
      // 429): wait, within 15 s in total, until every served version can be listed.
      const { spec } = crd as KubeObject & CrdVersions;
      const deadline = Date.now() + 15_000;
      for (const v of spec.versions.filter((x) => x.served)) {
        const resource = {
          group: spec.group,
          version: v.name,
          kind: '',
          plural: spec.names.plural,
          namespaced: false,
        };
        for (;;) {
          try {
            await api.list(resource, { limit: 1 });
            break;
          } catch (err) {
            if (!(err instanceof ApiError) || (err.code !== 429 && err.code !== 404) || Date.now() > deadline)
              throw err;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      }
    },
    async uninstallCrd(name) {
      await uninstallCRDs(kubeConfig, [name]);
    },
    async dispose() {
      api.close();
    },
    ...extra,
  };
}

describeApiConformance('real apiserver', () => realTarget(sharedControlPlane().kubeConfig));

// History compaction needs an apiserver that compacts etcd quickly and reads watches and lists
// from etcd rather than from its watch cache (whose window is not tied to compaction): a
// dedicated control plane with `--etcd-compaction-interval` and `--watch-cache=false`.
let plane: ControlPlane | undefined;
describeApiConformance(
  'real apiserver (compaction)',
  async () => {
    plane = await startControlPlane({
      apiServerArgs: ['--etcd-compaction-interval=1s', '--watch-cache=false'],
    });
    const kubeConfig = plane.kubeConfig;
    const target = realTarget(kubeConfig, {
      async compact() {
        // Write a marker, then wait until a list at the marker's predecessor is refused: the
        // apiserver compacts to the revision it saw one interval earlier, so this takes 1-3 s.
        const marker = await target.api.create(builtins.ConfigMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { generateName: 'compaction-', namespace: 'default' },
        } as KubeObject);
        const before = String(BigInt(marker.metadata!.resourceVersion!) - 1n);
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await target.api.list(builtins.ConfigMap, {
              namespace: 'default',
              resourceVersion: before,
              resourceVersionMatch: 'Exact',
              limit: 1,
            });
          } catch (err) {
            if (err instanceof ApiError && err.code === 410) return;
            throw err;
          }
          if (Date.now() > deadline) throw new Error('etcd did not compact within 30 s');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      },
      async dispose() {
        target.api.close();
        await plane?.stop();
      },
    });
    return target;
  },
  { groups: ['compaction'] },
);
