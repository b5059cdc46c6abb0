import { describeApiConformance } from '../test/conformance/index.ts';
import { builtins } from './builtins.ts';
import { isNotFound } from './errors.ts';
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
      otherClient: () => createFakeApiClient(api.cluster),
      async installCrd(crd) {
        await api.create(builtins.CustomResourceDefinition, crd);
      },
      async uninstallCrd(name) {
        await api.delete({ resource: builtins.CustomResourceDefinition, name }).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
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
      'admission',
      'list',
      'watch',
      'subresources',
      'patch',
      'apply',
      'discovery',
      'crds',
      'compaction',
      'differences',
    ],
  },
);
