import { builtins } from './builtins.ts';
import { describeApiConformance } from './conformance/index.ts';
import { createFakeApiClient } from './fake/index.ts';
import type { KubeObject } from './object.ts';

describeApiConformance(
  'fake',
  () => {
    const api = createFakeApiClient({ strictNamespaces: true });
    let n = 0;
    return {
      kind: 'fake',
      api,
      async newNamespace() {
        const ns = await api.create(builtins.Namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `test-${++n}` },
        } as KubeObject);
        return ns.metadata!.name!;
      },
      async installCrd(crd) {
        await api.create(builtins.CustomResourceDefinition, crd);
      },
      async uninstallCrd(name) {
        await api.delete(builtins.CustomResourceDefinition, name);
      },
      async compact() {
        api.cluster.compact();
      },
      async dispose() {
        api.cluster.close();
      },
    };
  },
  {
    groups: [
      'crud',
      'list',
      'watch',
      'subresources',
      'patch',
      'apply',
      'discovery',
      'compaction',
      'differences',
    ],
  },
);
