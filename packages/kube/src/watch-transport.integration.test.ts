import dc from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import tls from 'node:tls';
import { createTestNamespace, sharedControlPlane, waitFor } from '@kubeloom/testing';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WatchEvent } from './api.ts';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { ForbiddenError } from './errors.ts';
import { HttpApiClient } from './http-api-client.ts';
import { noopLogger } from './logger.ts';

/**
 * Which path a watch takes is observable from outside: requests through node:https are published
 * on the `http.client.request.start` diagnostics channel, and the watch transport's own TLS
 * connections are `tls.connect` calls that ask for ALPN `http/1.1` (the agent's ask for none;
 * client-node's may, so a test counts only those made while it watches).
 */
function observeTransport() {
  const viaHttps: string[] = [];
  const onRequest = (message: unknown) => viaHttps.push((message as { request: ClientRequest }).request.path);
  dc.subscribe('http.client.request.start', onRequest);
  const connect = vi.spyOn(tls, 'connect');
  /** The TLS sockets that asked for ALPN, from the `from`-th tls.connect call on. */
  const rawSockets = (from = 0): tls.TLSSocket[] =>
    connect.mock.calls
      .slice(from)
      .flatMap((args, i) =>
        (args[0] as tls.ConnectionOptions).ALPNProtocols
          ? [connect.mock.results[from + i]!.value as tls.TLSSocket]
          : [],
      );
  return {
    viaHttps,
    rawSockets,
    /** How many tls.connect calls were made so far. */
    connects: () => connect.mock.calls.length,
    stop: () => {
      dc.unsubscribe('http.client.request.start', onRequest);
      connect.mockRestore();
    },
  };
}

/** A kubeconfig with a bound token of a new ServiceAccount in `namespace`, optionally allowed to read its ConfigMaps. */
async function tokenKubeConfig(admin: KubeConfig, namespace: string, canRead: boolean): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  const name = canRead ? 'reader' : 'nobody';
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  if (canRead) {
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
  }
  const { status } = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
    users: [{ name, token: status!.token }],
    contexts: [{ name: 'ctx', cluster: 'c', user: name }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('the watch transport on the real control plane', () => {
  let observed: ReturnType<typeof observeTransport>;
  beforeEach(() => {
    observed = observeTransport();
  });
  afterEach(() => observed.stop());

  it('lists and watches over TLS connections of their own with a client certificate; an aborted informer leaves its watch open no more, a shut down client no socket', async () => {
    const plane = sharedControlPlane();
    const namespace = await createTestNamespace(plane.kubeConfig, 'watch-transport');
    const kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    const from = observed.connects();
    try {
      const informer = kube.informer(builtins.ConfigMap, { namespace });
      await kube.runAndWait(stop.signal);
      await kube.api.create(builtins.ConfigMap, { metadata: { name: 'seen', namespace } });
      await waitFor('the event through the watch', () => informer.store.get(`${namespace}/seen`));
      // Neither the list's page nor the watch went through node:https.
      expect(
        observed.viaHttps.filter((p) => p.startsWith(`/api/v1/namespaces/${namespace}/configmaps?`)),
      ).toEqual([]);
      const sockets = observed.rawSockets(from);
      expect(sockets).toHaveLength(2); // the list's one page (kept alive for the next), the informer's one watch
      for (const s of sockets) expect(s.alpnProtocol).toBe('http/1.1');
      stop.abort();
      await waitFor('the watch connection to close', () => sockets[1]!.destroyed && sockets[1]!.closed);
      kube.shutdown();
      await waitFor('every connection to close', () => sockets.every((s) => s.destroyed && s.closed));
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });

  it('watches with a bearer token, resumes the TLS session for the next watch, and reports a forbidden watch as ForbiddenError', async () => {
    const plane = sharedControlPlane();
    const namespace = await createTestNamespace(plane.kubeConfig, 'watch-transport-token');
    const reader = new HttpApiClient(await tokenKubeConfig(plane.kubeConfig, namespace, true));
    const nobody = new HttpApiClient(await tokenKubeConfig(plane.kubeConfig, namespace, false));
    const admin = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    try {
      // The RoleBinding takes effect once the authorizer has seen it.
      const list = await waitFor('the reader to be allowed to list', () =>
        reader.list(builtins.ConfigMap, { namespace }).catch(() => undefined),
      );
      const stop = new AbortController();
      const from = observed.connects();
      const events: WatchEvent[] = [];
      const watching = (async () => {
        for await (const ev of reader.watch(builtins.ConfigMap, {
          namespace,
          resourceVersion: list.metadata.resourceVersion,
          signal: stop.signal,
        })) {
          events.push(ev);
          if (events.length === 2) stop.abort();
        }
      })();
      await admin.api.create(builtins.ConfigMap, { metadata: { name: 'one', namespace } });
      await admin.api.create(builtins.ConfigMap, { metadata: { name: 'two', namespace } });
      await watching;
      expect(
        events.map((e) => [e.type, (e as { object: { metadata: { name: string } } }).object.metadata.name]),
      ).toEqual([
        ['ADDED', 'one'],
        ['ADDED', 'two'],
      ]);
      expect(observed.viaHttps.filter((p) => p.includes('watch=true'))).toEqual([]);
      const sockets = observed.rawSockets(from);
      expect(sockets).toHaveLength(1);
      await waitFor(
        'the aborted watch connection to close',
        () => sockets[0]!.destroyed && sockets[0]!.closed,
      );

      // The next watch of the client resumes the TLS session of the first.
      const next = observed.connects();
      let reused: boolean | undefined;
      for await (const _ev of reader.watch(builtins.ConfigMap, { namespace })) {
        reused = observed.rawSockets(next)[0]!.isSessionReused();
        break;
      }
      expect(reused).toBe(true);
      const [resumed] = observed.rawSockets(next);
      await waitFor('the second watch connection to close', () => resumed!.destroyed && resumed!.closed);

      const refused = await (async () => {
        for await (const _ev of nobody.watch(builtins.ConfigMap, { namespace })) break;
      })().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ForbiddenError);
      expect((refused as Error).message).toMatch(
        /watch configmaps in \S+: .*cannot watch resource "configmaps"/,
      );
    } finally {
      reader.close();
      nobody.close();
      admin.shutdown();
    }
  });
});
