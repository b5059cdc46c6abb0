import { expect, it } from 'vitest';
import { builtins } from '../builtins.ts';
import type { KubeObject } from '../object.ts';
import { apiError, configMap, deployment } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

type Dep = KubeObject & {
  spec: { strategy?: unknown; template: { spec: { containers: Array<{ imagePullPolicy?: string }> } } };
};

/**
 * Behaviours where the fake deliberately differs from the apiserver. Each test states the real
 * behaviour and the fake's, so a change on either side shows up here.
 */
export function differencesTests(ctx: ConformanceContext): void {
  it('DIFFERENCE: deleting a namespace (real: stays Terminating without a namespace controller; fake: deleted with its objects at once)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.delete(builtins.Namespace, ns);
    if (kind === 'real') {
      const terminating = (await api.get(builtins.Namespace, ns)) as KubeObject & {
        status?: { phase?: string };
      };
      expect(terminating.metadata?.deletionTimestamp).toBeDefined();
      expect(terminating.status?.phase).toBe('Terminating');
      expect((await api.get(builtins.ConfigMap, 'a', ns)).metadata?.name).toBe('a');
    } else {
      expect((await apiError(api.get(builtins.Namespace, ns))).code).toBe(404);
      expect((await apiError(api.get(builtins.ConfigMap, 'a', ns))).code).toBe(404);
    }
  });

  it('DIFFERENCE: defaulting of built-ins (real: defaults such as imagePullPolicy and strategy; fake: none)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const d = (await api.create(builtins.Deployment, deployment(ns, 'd'))) as Dep;
    if (kind === 'real') {
      expect(d.spec.strategy).toBeDefined();
      expect(d.spec.template.spec.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    } else {
      expect(d.spec.strategy).toBeUndefined();
      expect(d.spec.template.spec.containers[0]?.imagePullPolicy).toBeUndefined();
    }
  });

  it('DIFFERENCE: schema validation (real: a ConfigMap value must be a string; fake: not validated)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const bad = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bad', namespace: ns },
      data: { k: 1 },
    } as unknown as KubeObject;
    if (kind === 'real') {
      const err = await apiError(api.create(builtins.ConfigMap, bad));
      expect(err.code).toBe(400);
    } else {
      expect((await api.create(builtins.ConfigMap, bad)).metadata?.name).toBe('bad');
    }
  });
}
