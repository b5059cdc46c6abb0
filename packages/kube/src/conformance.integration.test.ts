import {
  type ControlPlane,
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  startControlPlane,
  uninstallCRDs,
  waitFor,
} from '@kubeloom/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConformanceTarget } from '../test/conformance/index.ts';
import { describeApiConformance } from '../test/conformance/index.ts';
import { builtins } from './builtins.ts';
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
      // 429): wait, with a generous bound, until every served version can be listed.
      const { spec } = crd as KubeObject & CrdVersions;
      for (const v of spec.versions.filter((x) => x.served)) {
        const resource = {
          group: spec.group,
          version: v.name,
          kind: '',
          plural: spec.names.plural,
          namespaced: false,
        };
        await waitFor(`${spec.names.plural}.${spec.group}/${v.name} to be served`, async () => {
          try {
            await api.list(resource, { limit: 1 });
            return true;
          } catch (err) {
            if (err instanceof ApiError && (err.code === 429 || err.code === 404)) throw err;
            throw new Error(
              `listing ${spec.names.plural} failed for another reason than a CRD not yet served`,
              { cause: err },
            );
          }
        });
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
        await waitFor(
          'etcd to compact the revision before the marker',
          async () => {
            try {
              await target.api.list(builtins.ConfigMap, {
                namespace: 'default',
                resourceVersion: before,
                resourceVersionMatch: 'Exact',
                limit: 1,
              });
              return false;
            } catch (err) {
              if (err instanceof ApiError && err.code === 410) return true;
              throw err;
            }
          },
          { timeoutMs: 60_000, intervalMs: 200 },
        );
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
