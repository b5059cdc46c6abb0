import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinary } from './binaries.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { installCRDs, uninstallCRDs } from './crds.ts';
import { createTestNamespace } from './namespace.ts';
import { isPortClosed } from './ports.ts';
import { processExists } from './process.ts';
import { sharedControlPlane } from './shared.ts';
import { KUBERNETES_VERSION } from './versions.ts';
import { waitFor } from './wait-for.ts';

// The group is this file's own: the control plane is shared with every test file, and codegen's
// tests install a different widgets.test.kubeloom.dev (two versions, status and scale), so a CRD of
// that name would replace theirs while they run, or theirs this one.
const WIDGET_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.testing.kubeloom.dev
spec:
  group: testing.kubeloom.dev
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: { type: integer, minimum: 1, maximum: 10 }
                color: { type: string, enum: [red, blue] }
`;

describe('shared control plane (global setup)', () => {
  it('client-node creates, gets, lists and watches a ConfigMap', async () => {
    const { kubeConfig, version } = sharedControlPlane();
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    // #region createTestNamespace
    // A fresh namespace per test (configmaps-xxxxx, labelled kubeloom.dev/test): no cleanup needed.
    const namespace = await createTestNamespace(kubeConfig, 'configmaps');
    // #endregion createTestNamespace

    const events: Array<[string, string | undefined]> = [];
    const watch = new Watch(kubeConfig);
    const controller = await watch.watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      {},
      (phase: string, obj: V1ConfigMap) => {
        events.push([phase, obj.metadata?.name]);
      },
      () => {},
    );
    try {
      const created = await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'one' }, data: { a: '1' } },
      });
      expect(created.metadata?.resourceVersion).toBeTruthy();
      const got = await core.readNamespacedConfigMap({ namespace, name: 'one' });
      expect(got.data).toEqual({ a: '1' });
      const list = await core.listNamespacedConfigMap({ namespace });
      expect(list.items.map((c) => c.metadata?.name)).toContain('one');
      // waitFor's bound, not 10 s: the shared apiserver of a loaded run can be that slow.
      await waitFor('the ADDED event of one', () =>
        events.some(([phase, name]) => phase === 'ADDED' && name === 'one'),
      );
      expect(events).toContainEqual(['ADDED', 'one']);
    } finally {
      controller.abort();
    }
  });

  it('installs a CRD, accepts a valid object and rejects an invalid one by schema', async () => {
    const { kubeConfig } = sharedControlPlane();
    const [crd] = await installCRDs(kubeConfig, [{ yaml: WIDGET_CRD }]);
    expect(crd?.metadata.name).toBe('widgets.testing.kubeloom.dev');
    const namespace = await createTestNamespace(kubeConfig, 'widgets');
    const { KubernetesObjectApi } = await import('@kubernetes/client-node');
    const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    const valid: { metadata?: { uid?: string } } = await objects.create({
      apiVersion: 'testing.kubeloom.dev/v1',
      kind: 'Widget',
      metadata: { name: 'ok', namespace },
      spec: { size: 3, color: 'red' },
    } as never);
    expect(valid.metadata?.uid).toBeTruthy();
    const invalid = objects.create({
      apiVersion: 'testing.kubeloom.dev/v1',
      kind: 'Widget',
      metadata: { name: 'bad', namespace },
      spec: { size: 42, color: 'green' },
    } as never);
    await expect(invalid).rejects.toMatchObject({ code: 422 });
    await expect(invalid).rejects.toThrow(/spec.size|spec.color/);
  });

  it('installing the same CRD twice replaces it and waits again', async () => {
    const { kubeConfig } = sharedControlPlane();
    await installCRDs(kubeConfig, [{ yaml: WIDGET_CRD }]);
    const again = await installCRDs(kubeConfig, [{ yaml: WIDGET_CRD }]);
    expect(again).toHaveLength(1);
  });

  it('installs CRDs from a file, a directory and an object', async () => {
    const { kubeConfig } = sharedControlPlane();
    const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-crds-'));
    try {
      const doc = (plural: string, kind: string) =>
        WIDGET_CRD.replaceAll('widgets', plural)
          .replaceAll('Widget', kind)
          .replaceAll('widget,', `${kind.toLowerCase()},`)
          .replace('singular: widget', `singular: ${kind.toLowerCase()}`);
      writeFileSync(path.join(dir, 'a.yaml'), doc('aparts', 'Apart'));
      mkdirSync(path.join(dir, 'more'));
      writeFileSync(path.join(dir, 'more', 'b.yaml'), doc('bparts', 'Bpart'));
      writeFileSync(path.join(dir, 'more', 'ignored.txt'), 'not yaml');
      const fromFile = await installCRDs(kubeConfig, [{ path: path.join(dir, 'a.yaml') }]);
      const fromDir = await installCRDs(kubeConfig, [{ path: path.join(dir, 'more') }]);
      const object = (await import('yaml')).parse(doc('cparts', 'Cpart'));
      const fromObject = await installCRDs(kubeConfig, [object]);
      expect([...fromFile, ...fromDir, ...fromObject].map((c) => c.metadata.name)).toEqual([
        'aparts.testing.kubeloom.dev',
        'bparts.testing.kubeloom.dev',
        'cparts.testing.kubeloom.dev',
      ]);
      await expect(installCRDs(kubeConfig, [{ path: path.join(dir, 'missing.yaml') }])).rejects.toThrow(
        /does not exist/,
      );
      await uninstallCRDs(kubeConfig, [
        'aparts.testing.kubeloom.dev',
        'bparts.testing.kubeloom.dev',
        'cparts.testing.kubeloom.dev',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a malformed CRD document clearly', async () => {
    const { kubeConfig } = sharedControlPlane();
    await expect(
      installCRDs(kubeConfig, [{ yaml: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' }]),
    ).rejects.toThrow(/not an apiextensions.k8s.io\/v1 CustomResourceDefinition/);
    await expect(installCRDs(kubeConfig, [{ yaml: 'a: [unclosed' }])).rejects.toThrow(/invalid YAML at line/);
  });
});

describe('dedicated control planes', () => {
  let a: ControlPlane;
  let b: ControlPlane;
  beforeAll(async () => {
    [a, b] = await Promise.all([startControlPlane(), startControlPlane()]);
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('runs two control planes side by side, isolated from each other', async () => {
    expect(a.server).not.toBe(b.server);
    const coreA = a.kubeConfig.makeApiClient(CoreV1Api);
    const coreB = b.kubeConfig.makeApiClient(CoreV1Api);
    await coreA.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'only-in-a' } },
    });
    await expect(
      coreB.readNamespacedConfigMap({ namespace: 'default', name: 'only-in-a' }),
    ).rejects.toMatchObject({
      code: 404,
    });
    const kc = new KubeConfig();
    kc.loadFromFile(a.kubeconfigPath);
    const fromFile = await kc
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ namespace: 'default', name: 'only-in-a' });
    expect(fromFile.metadata?.name).toBe('only-in-a');
  });

  it('authenticates other users by client certificate and authorizes them with RBAC', async () => {
    const alice = a.userKubeConfig('alice', ['developers']).makeApiClient(CoreV1Api);
    await expect(alice.listNamespacedConfigMap({ namespace: 'default' })).rejects.toMatchObject({
      code: 403,
    });
    const admin = a.userKubeConfig('root', ['system:masters']).makeApiClient(CoreV1Api);
    await expect(admin.listNamespacedConfigMap({ namespace: 'default' })).resolves.toBeTruthy();
  });

  it('await using (and stop()) leaves no process, port or directory behind, and is idempotent', async () => {
    let plane: ControlPlane | undefined;
    let pids: number[] = [];
    let ports: number[] = [];
    {
      // #region own-plane
      // A plane of its own, for a test that changes flags or breaks things: stopped at block end.
      await using disposable = await startControlPlane({ apiServerArgs: ['--watch-cache=false'] });
      // #endregion own-plane
      plane = disposable;
      pids = [plane.processes.etcd.pid, plane.processes.apiServer.pid];
      ports = [...plane.processes.etcd.ports, ...plane.processes.apiServer.ports];
      expect(pids.every(processExists)).toBe(true);
      expect(existsSync(plane.dir)).toBe(true);
    }
    await plane.stop();
    expect(pids.map(processExists)).toEqual([false, false]);
    for (const port of ports) expect(await isPortClosed(port)).toBe(true);
    expect(existsSync(plane.dir)).toBe(false);
  }, 120_000);

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const plane = await startControlPlane({ signal: controller.signal });
    controller.abort();
    await waitFor(
      'the apiserver to exit and the plane directory to be removed',
      () => !processExists(plane.processes.apiServer.pid) && !existsSync(plane.dir),
    );
    expect(processExists(plane.processes.apiServer.pid)).toBe(false);
    expect(processExists(plane.processes.etcd.pid)).toBe(false);
    expect(existsSync(plane.dir)).toBe(false);
  }, 120_000);

  it('passes extra apiserver flags, and an invalid flag fails with the log tail', async () => {
    await expect(startControlPlane({ apiServerArgs: ['--no-such-flag=1'], attempts: 1 })).rejects.toThrow(
      /kube-apiserver exited .* before[\s\S]*unknown flag: --no-such-flag/,
    );
  }, 120_000);
});

describe('binary discovery', () => {
  it('gives a clear error for a wrong binary path', async () => {
    const env = { TEST_ASSET_KUBE_APISERVER: '/nonexistent/kube-apiserver' };
    expect(() => findBinary('kube-apiserver', { env })).toThrow(
      /TEST_ASSET_KUBE_APISERVER points at \/nonexistent\/kube-apiserver, which does not exist.*npx kubeloom-testing assets/,
    );
    const previous = process.env.TEST_ASSET_KUBE_APISERVER;
    process.env.TEST_ASSET_KUBE_APISERVER = '/nonexistent/kube-apiserver';
    try {
      await expect(startControlPlane()).rejects.toThrow(/which does not exist/);
    } finally {
      if (previous === undefined) delete process.env.TEST_ASSET_KUBE_APISERVER;
      else process.env.TEST_ASSET_KUBE_APISERVER = previous;
    }
  });

  it('rejects a binary that is not executable', () => {
    const file = path.join(import.meta.dirname, 'versions.ts');
    expect(() => findBinary('etcd', { env: { TEST_ASSET_ETCD: file } })).toThrow(/not executable/);
  });

  it('lists every searched place and how to build the binaries when nothing is found', () => {
    const env = {
      HOME: '/nonexistent-home',
      XDG_CACHE_HOME: '/nonexistent-cache',
      XDG_DATA_HOME: '/nonexistent-data',
    };
    expect(() => findBinary('etcd', { env })).toThrow(
      /Cannot find the etcd binary\. Searched:[\s\S]*TEST_ASSET_ETCD[\s\S]*KUBEBUILDER_ASSETS[\s\S]*kubebuilder-envtest[\s\S]*npx kubeloom-testing assets/,
    );
  });

  it("picks one setup-envtest version directory for all binaries, kubeloom's version first", () => {
    const data = mkdtempSync(path.join(tmpdir(), 'kubeloom-envtest-'));
    try {
      const store = path.join(data, 'kubebuilder-envtest', 'k8s');
      const make = (version: string, ...bins: string[]) => {
        mkdirSync(path.join(store, `${version}-linux-amd64`), { recursive: true });
        for (const b of bins)
          writeFileSync(path.join(store, `${version}-linux-amd64`, b), '#!/bin/sh\n', { mode: 0o755 });
      };
      make('1.99.0', 'kube-apiserver'); // newest, but incomplete: no etcd
      make('1.30.0', 'kube-apiserver', 'etcd');
      const env = { HOME: '/nonexistent-home', XDG_CACHE_HOME: '/nonexistent-cache', XDG_DATA_HOME: data };
      expect(findBinary('kube-apiserver', { env })).toBe(
        path.join(store, '1.30.0-linux-amd64', 'kube-apiserver'),
      );
      expect(findBinary('etcd', { env })).toBe(path.join(store, '1.30.0-linux-amd64', 'etcd'));
      make(KUBERNETES_VERSION, 'kube-apiserver', 'etcd');
      expect(findBinary('etcd', { env })).toBe(path.join(store, `${KUBERNETES_VERSION}-linux-amd64`, 'etcd'));
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('prefers TEST_ASSET_* over KUBEBUILDER_ASSETS', () => {
    const real = findBinary('etcd');
    expect(findBinary('etcd', { env: { TEST_ASSET_ETCD: real, KUBEBUILDER_ASSETS: '/nope' } })).toBe(real);
    expect(findBinary('etcd', { env: { KUBEBUILDER_ASSETS: path.dirname(real) } })).toBe(real);
  });
});
