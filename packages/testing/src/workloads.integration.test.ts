import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ApiException,
  AppsV1Api,
  AuthenticationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { createTestNamespace } from './namespace.ts';
import { isPortClosed } from './ports.ts';
import { processExists } from './process.ts';
import { waitFor } from './wait-for.ts';

// One plane that runs workloads for this file (it costs a few seconds to start); every other
// integration test uses the shared lean plane.
let plane: ControlPlane;
let core: CoreV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  plane = await startControlPlane({ workloads: { nodes: 2 } });
  core = plane.kubeConfig.makeApiClient(CoreV1Api);
  apps = plane.kubeConfig.makeApiClient(AppsV1Api);
}, 180_000);

afterAll(async () => {
  await plane?.stop();
});

function deployment(name: string, replicas: number): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  };
}

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return true;
    throw err;
  }
}

async function selfSubject(kc: KubeConfig): Promise<{ username?: string; groups?: string[] }> {
  const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
  return review.status?.userInfo ?? {};
}

describe('startControlPlane({ workloads })', () => {
  it('runs the simulated Nodes, Ready, and names them', async () => {
    expect(plane.nodes).toEqual(['kwok-node-0', 'kwok-node-1']);
    const nodes = await core.listNode();
    for (const name of plane.nodes) {
      const node = nodes.items.find((n) => n.metadata?.name === name);
      expect(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
    // kwok renews each Node's Lease, so the Nodes stay Ready (no NotReady after 50 s).
    await waitFor('a node Lease for every Node', async () => {
      const leases = await plane.kubeConfig
        .makeApiClient(CoordinationV1Api)
        .listNamespacedLease({ namespace: 'kube-node-lease' });
      return plane.nodes.every((n) => leases.items.some((l) => l.metadata?.name === n));
    });
  });

  it('runs the controller-manager and scheduler with their own identities, not system:masters', async () => {
    for (const [file, user] of [
      ['kube-controller-manager.kubeconfig', 'system:kube-controller-manager'],
      ['kube-scheduler.kubeconfig', 'system:kube-scheduler'],
    ] as const) {
      const kc = new KubeConfig();
      kc.loadFromString(readFileSync(path.join(plane.dir, file), 'utf8'));
      const info = await selfSubject(kc);
      expect(info.username).toBe(user);
      expect(info.groups ?? []).not.toContain('system:masters');
    }
  });

  it('makes a Deployment Available, with Pods Running and Ready on simulated Nodes, with pod IPs', async () => {
    const namespace = await createTestNamespace(plane.kubeConfig, 'deploy');
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', 2) });
    // #region waitFor
    // Checks until the condition returns a truthy value (here the Deployment) or the bound passes;
    // the error then names what it waited for and what the condition last returned or threw.
    const available = await waitFor(
      'Deployment web to be Available with 2 replicas',
      async () => {
        const d = await apps.readNamespacedDeployment({ namespace, name: 'web' });
        return d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') &&
          d.status.availableReplicas === 2
          ? d
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // #endregion waitFor
    expect(available.metadata?.name).toBe('web');
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' });
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(pod.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
      expect(plane.nodes).toContain(pod.spec?.nodeName);
      // The ServiceAccount admission plugin is on: Pods run as their namespace's `default`.
      expect(pod.spec?.serviceAccountName).toBe('default');
    }
  });

  for (const propagationPolicy of ['Background', 'Foreground'] as const) {
    it(`garbage-collects the ReplicaSet and Pods of a deleted Deployment (${propagationPolicy})`, async () => {
      const namespace = await createTestNamespace(plane.kubeConfig, `gc-${propagationPolicy.toLowerCase()}`);
      await apps.createNamespacedDeployment({ namespace, body: deployment('owner', 2) });
      await waitFor(
        'both Pods of Deployment owner to run',
        async () => {
          const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=owner' });
          return pods.items.filter((p) => p.status?.phase === 'Running').length === 2;
        },
        { timeoutMs: 60_000 },
      );
      const replicaSets = await apps.listNamespacedReplicaSet({ namespace });
      expect(replicaSets.items).toHaveLength(1);

      await apps.deleteNamespacedDeployment({ namespace, name: 'owner', body: { propagationPolicy } });
      if (propagationPolicy === 'Foreground') {
        // The owner stays, marked for deletion, until the garbage collector removed its dependents.
        const owner = await apps
          .readNamespacedDeployment({ namespace, name: 'owner' })
          .catch(() => undefined);
        if (owner) expect(owner.metadata?.finalizers).toContain('foregroundDeletion');
      }
      await waitFor(
        'the Deployment, its ReplicaSet and its Pods to be gone',
        async () => {
          const [rs, pods] = await Promise.all([
            apps.listNamespacedReplicaSet({ namespace }),
            core.listNamespacedPod({ namespace }),
          ]);
          const ownerGone = await gone(() => apps.readNamespacedDeployment({ namespace, name: 'owner' }));
          return ownerGone && rs.items.length === 0 && pods.items.length === 0;
        },
        { timeoutMs: 60_000 },
      );
    });
  }

  it('finishes terminating a deleted namespace, Pods and all', async () => {
    const namespace = await createTestNamespace(plane.kubeConfig, 'terminate');
    await apps.createNamespacedDeployment({ namespace, body: deployment('doomed', 1) });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'data' } } });
    await waitFor(
      'a Pod of Deployment doomed to run',
      async () =>
        (await core.listNamespacedPod({ namespace })).items.some((p) => p.status?.phase === 'Running'),
      { timeoutMs: 60_000 },
    );
    await core.deleteNamespace({ name: namespace });
    await waitFor(
      `namespace ${namespace} to be gone`,
      () => gone(() => core.readNamespace({ name: namespace })),
      {
        timeoutMs: 120_000,
      },
    );
  });
});

describe('ServiceAccount identities', () => {
  it('refuses a ServiceAccount without RBAC (403) and admits it once a Role is bound', async () => {
    const namespace = await createTestNamespace(plane.kubeConfig, 'rbac');
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'operator' } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' } } });
    const kc = await plane.serviceAccountKubeConfig(namespace, 'operator');
    expect((await selfSubject(kc)).username).toBe(`system:serviceaccount:${namespace}:operator`);
    const asOperator = kc.makeApiClient(CoreV1Api);

    const refused = await asOperator.listNamespacedConfigMap({ namespace }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException<unknown>).code).toBe(403);

    const rbac = plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'read-configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'operator-reads-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace }],
      },
    });
    // RBAC reaches the authorizer through an informer: wait for it, do not assume it is instant.
    const list = await waitFor('the RoleBinding to let the ServiceAccount list ConfigMaps', () =>
      asOperator.listNamespacedConfigMap({ namespace }),
    );
    expect(list.items.map((c) => c.metadata?.name)).toContain('settings');
    // Still nothing beyond the Role.
    await expect(asOperator.listNamespacedSecret({ namespace })).rejects.toMatchObject({ code: 403 });
  });

  it('says what to do when the ServiceAccount does not exist', async () => {
    await expect(plane.serviceAccountKubeConfig('default', 'nobody')).rejects.toThrow(
      'ServiceAccount default/nobody does not exist: create it',
    );
  });

  it('starts a process with in-cluster configuration that reaches the apiserver as the ServiceAccount', async () => {
    const namespace = await createTestNamespace(plane.kubeConfig, 'in-cluster');
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'controller' } } });
    const inCluster = await plane.inClusterEnv(namespace, 'controller');
    expect(inCluster.serviceAccountDir.startsWith(plane.dir)).toBe(true);
    for (const file of ['token', 'ca.crt', 'namespace']) {
      expect(existsSync(path.join(inCluster.serviceAccountDir, file))).toBe(true);
    }
    // A separate Node process configured only by the environment and the files, as in a Pod.
    const script = `
      import { AuthenticationV1Api, KubeConfig } from '@kubernetes/client-node';
      const kc = new KubeConfig();
      kc.loadFromCluster(process.argv[1]);
      const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
      console.log(JSON.stringify({ user: review.status?.userInfo?.username, namespace: kc.getContextObject(kc.getCurrentContext())?.namespace }));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, inCluster.pathPrefix], {
      cwd: path.join(import.meta.dirname, '..'),
      env: { PATH: process.env.PATH ?? '', ...inCluster.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ user: `system:serviceaccount:${namespace}:controller`, namespace });

    const rotated = await inCluster.rotateToken();
    expect(rotated).not.toBe(inCluster.token);
    expect(readFileSync(path.join(inCluster.serviceAccountDir, 'token'), 'utf8')).toBe(rotated);
  });
});

describe('stopping the workloads plane', () => {
  it('leaves no process, port or file behind', async () => {
    const { processes, dir } = plane;
    const all = [
      processes.etcd,
      processes.apiServer,
      processes.controllerManager,
      processes.scheduler,
      processes.kwok,
    ];
    expect(all.every((p) => p !== undefined)).toBe(true);
    await plane.stop();
    for (const p of all) {
      expect(processExists(p?.pid ?? -1)).toBe(false);
      for (const port of p?.ports ?? []) expect(await isPortClosed(port)).toBe(true);
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('the lean plane', () => {
  it('stays the default: no controller-manager, scheduler or Nodes', async () => {
    await using lean = await startControlPlane();
    expect(lean.processes.controllerManager).toBeUndefined();
    expect(lean.processes.scheduler).toBeUndefined();
    expect(lean.processes.kwok).toBeUndefined();
    expect(lean.nodes).toEqual([]);
    const nodes = await lean.kubeConfig.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items).toEqual([]);
  });

  it('rejects a bad node count before starting anything', async () => {
    await expect(startControlPlane({ workloads: { nodes: 0 } })).rejects.toThrow(
      'workloads.nodes must be an integer from 1 to 100, got 0',
    );
  });
});
