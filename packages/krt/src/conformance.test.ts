import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@kubeloom/kclient';
import { builtins, objectKey, parseKey } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { afterAll, describe, it } from 'vitest';
import { collection } from './collection.ts';
import { index } from './collection-index.ts';
import type { Collection } from './core.ts';
import { fetch } from './fetch.ts';
import { fileCollection } from './files.ts';
import { informer } from './informer.ts';
import { joinCollection, joinWithMerge } from './join.ts';
import { manyCollection } from './many-collection.ts';
import { mapCollection } from './map.ts';
import { nestedJoin } from './nested-join.ts';
import { staticCollection } from './static.ts';
import { conformanceCases, type RigFactory } from './testing/conformance.ts';

interface Obj {
  metadata: { name: string; namespace: string };
  v?: number;
}

function obj(key: string, v = 0): Obj {
  const { namespace, name } = parseKey(key);
  return { metadata: { name, namespace: namespace ?? '' }, v };
}

const metadata = { owner: 'conformance' };

const rigs: Record<string, RigFactory<unknown>> = {
  static: (signal) => {
    const c = staticCollection<Obj>([], { signal, name: 'static', metadata });
    return { collection: c, metadata, create: (k) => c.update(obj(k)), delete: (k) => c.delete(k) };
  },
  informer: async (signal) => {
    const kube = createFakeKubeClient();
    const client = createClient(kube, builtins.ConfigMap);
    const c = informer(client, { signal, name: 'informer', metadata });
    signal.addEventListener('abort', () => kube.shutdown());
    await kube.runAndWait(signal);
    return {
      collection: c,
      metadata,
      create: async (k) => {
        const { namespace, name } = parseKey(k);
        await kube.api.create(builtins.ConfigMap, { metadata: { name, namespace } });
      },
      delete: async (k) => {
        const { namespace, name } = parseKey(k);
        await kube.api.delete({ resource: builtins.ConfigMap, name, namespace });
      },
    };
  },
  join: (signal) => {
    const a = staticCollection<Obj>([], { signal, name: 'a' });
    const b = staticCollection<Obj>([], { signal, name: 'b' });
    const c = joinCollection([a, b], { signal, name: 'join', metadata });
    // Objects go to alternating collections; the second has a shadow copy of every other key.
    let n = 0;
    return {
      collection: c,
      metadata,
      create: (k) => {
        (n++ % 2 === 0 ? a : b).update(obj(k));
      },
      delete: (k) => {
        a.delete(k);
        b.delete(k);
      },
    };
  },
  'join-merge': (signal) => {
    const a = staticCollection<Obj>([], { signal, name: 'a' });
    const b = staticCollection<Obj>([], { signal, name: 'b' });
    const c = joinWithMerge([a, b], (objs) => ({ ...objs[0]!, v: objs.length }), {
      signal,
      name: 'merge',
      metadata,
    });
    return {
      collection: c,
      metadata,
      create: (k) => {
        a.update(obj(k));
        b.update(obj(k));
      },
      delete: (k) => {
        a.delete(k);
        b.delete(k);
      },
    };
  },
  'many-collection': (signal) => {
    // The cross product of namespaces and names.
    const namespaces = staticCollection<string>([], { signal, name: 'namespaces' });
    const names = staticCollection<Obj>([], { signal, name: 'names' });
    const c = manyCollection(
      namespaces,
      (ctx, ns) => fetch(ctx, names).flatMap((n) => (n.metadata.namespace === ns ? [obj(objectKey(n))] : [])),
      { signal, name: 'many', metadata },
    );
    return {
      collection: c,
      metadata,
      create: (k) => {
        namespaces.conditionalUpdate(parseKey(k).namespace!);
        names.update(obj(k));
      },
      delete: (k) => names.delete(k),
    };
  },
  collection: (signal) => {
    const src = staticCollection<Obj>([], { signal, name: 'src' });
    const c = collection(src, (_ctx, o) => ({ ...o, v: 1 }), { signal, name: 'collection', metadata });
    return { collection: c, metadata, create: (k) => src.update(obj(k)), delete: (k) => src.delete(k) };
  },
  map: (signal) => {
    const src = staticCollection<Obj>([], { signal, name: 'src' });
    const c = mapCollection(src, (o) => ({ ...o, v: 42 }), { signal, name: 'map', metadata });
    return { collection: c, metadata, create: (k) => src.update(obj(k)), delete: (k) => src.delete(k) };
  },
  'nested-join': (signal) => {
    const a = staticCollection<Obj>([], { signal, name: 'a' });
    const b = staticCollection<Obj>([], { signal, name: 'b' });
    const container = staticCollection<Collection<Obj>>([a, b], { signal, name: 'container' });
    const c = nestedJoin(container, { signal, name: 'nested', metadata });
    let n = 0;
    return {
      collection: c,
      metadata,
      create: (k) => {
        (n++ % 2 === 0 ? a : b).update(obj(k));
      },
      delete: (k) => {
        a.delete(k);
        b.delete(k);
      },
    };
  },
  'index-collection': (signal) => {
    // Objects grouped by their own key: one group per object.
    const src = staticCollection<Obj>([], { signal, name: 'src' });
    const idx = index(src, 'self', (o) => [objectKey(o)]);
    const c = idx.asCollection({ signal, name: 'index', metadata });
    return { collection: c, metadata, create: (k) => src.update(obj(k)), delete: (k) => src.delete(k) };
  },
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

rigs.file = (signal) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'krt-files-'));
  dirs.push(dir);
  const c = fileCollection<Obj>(dir, { signal, name: 'files', metadata, debounceMs: 5 });
  const file = (k: string) => path.join(dir, `${k.replace('/', '_')}.yaml`);
  return {
    collection: c,
    metadata,
    create: (k) => {
      const { namespace, name } = parseKey(k);
      writeFileSync(file(k), `metadata:\n  name: ${name}\n  namespace: ${namespace}\n`);
    },
    delete: (k) => unlinkSync(file(k)),
  };
};

for (const [name, factory] of Object.entries(rigs)) {
  describe(`conformance: ${name}`, () => {
    for (const c of conformanceCases(factory)) it(c.name, () => c.run());
  });
}
