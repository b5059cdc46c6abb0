import { createTestNamespace, sharedControlPlane, startFaultProxy, waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { noopLogger } from './logger.ts';

describe('a reset watch on the real control plane', () => {
  it('is reported as a reset that resumes (not as an unreachable server), and resumes without relisting', async () => {
    const plane = sharedControlPlane();
    await using proxy = await startFaultProxy({ upstream: plane });
    const namespace = await createTestNamespace(plane.kubeConfig, 'watch-reset');
    const direct = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const logger = recordingLogger();
    const viaProxy = createKubeClient({
      kubeConfig: proxy.kubeConfig(),
      logger,
      tuning: { initialBackoffMs: 20, maxBackoffMs: 300 },
    });
    const stop = new AbortController();
    try {
      const informer = viaProxy.informer(builtins.ConfigMap, { namespace });
      await viaProxy.runAndWait(stop.signal);
      // An event through the watch proves the stream is open on the client side.
      await direct.api.create(builtins.ConfigMap, { metadata: { name: 'before', namespace } });
      await waitFor('the event before the reset', () => informer.store.get(`${namespace}/before`));
      expect(proxy.cut({ watch: true, namespace })).toBe(1);
      const lastError = await waitFor('the reset to be recorded', () =>
        informer.health().errors > 0 ? informer.health().lastError : undefined,
      );
      expect(lastError).toMatch(/^watch configmaps in \S+: the open watch was reset after 1 event/);
      expect(lastError).toMatch(/watch again from the last resourceVersion received to resume/);
      expect(lastError).not.toMatch(/cannot reach/);
      const record = await waitFor('the reset to be logged', () =>
        logger.records.find(
          (r) => r.message === 'the watch was reset; resuming from the last resourceVersion',
        ),
      );
      expect(record.level).toBe('info');
      await direct.api.create(builtins.ConfigMap, { metadata: { name: 'after', namespace } });
      await waitFor('the event after the reset', () => informer.store.get(`${namespace}/after`));
      expect(informer.health()).toMatchObject({ lists: 1, relists: 0 });
      expect(logger.records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    } finally {
      stop.abort();
      viaProxy.shutdown();
      direct.shutdown();
    }
  });
});
