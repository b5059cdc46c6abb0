import { builtins, InvalidError, NotFoundError } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../../test/fake-harness.ts';
import { createClient, createWriteClient } from '../create-client.ts';
import { ClientTestError } from './client-test-error.ts';
import { names } from './names.ts';
import { wrap } from './test-client.ts';

afterEach(closeFakes);

describe('clienttest writers', () => {
  it('name the resource kind when the object has none', async () => {
    const { kube } = fakeKube();
    for (const w of [
      wrap(createWriteClient(kube, builtins.ConfigMap)),
      wrap(createClient(kube, builtins.ConfigMap)),
    ]) {
      const err = await w
        .create({ metadata: { name: 'Bad_Name', namespace: 'ns' } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientTestError);
      expect((err as Error).message).toMatch(/^clienttest: create ConfigMap ns\/Bad_Name failed: /);
      expect((err as Error).cause).toBeInstanceOf(InvalidError);
      await expect(w.delete({ name: 'missing', namespace: 'ns' })).rejects.toThrow(
        /^clienttest: delete ConfigMap ns\/missing failed/,
      );
    }
    // the object's own kind wins
    const err = await wrap(createWriteClient(kube, builtins.ConfigMap))
      .update({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope', namespace: 'ns' } })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^clienttest: update ConfigMap ns\/nope failed/);
    expect((err as Error).cause).toBeInstanceOf(NotFoundError);
  });

  it('wrap: typed cached reads, failing writes; names() collects names', async () => {
    const { kube, stop } = fakeKube({
      objects: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { k: 'v' } } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } },
      ],
    });
    const cms = wrap(createClient(kube, builtins.ConfigMap));
    expect('get' in wrap(createWriteClient(kube, builtins.ConfigMap))).toBe(false); // a writer stays a writer
    expect(cms.get('a', 'ns')).toBeUndefined(); // cached: nothing before the informer runs
    await kube.runAndWait(stop.signal);
    expect(cms.get('a', 'ns')?.metadata?.labels).toEqual({ k: 'v' });
    expect(names(cms.list('ns'))).toEqual(new Set(['a', 'b']));
    expect(names(cms.list(undefined, 'k=v'))).toEqual(new Set(['a']));
    const updated = await cms.createOrUpdate({ metadata: { name: 'a', namespace: 'ns' }, data: { x: '1' } });
    expect(updated.data).toEqual({ x: '1' });
    await expect(cms.updateStatus({ metadata: { name: 'a', namespace: 'ns' } })).rejects.toThrow(
      /^clienttest: updateStatus ConfigMap ns\/a failed: .*no status subresource/,
    );
    expect(names([])).toEqual(new Set());
  });
});
