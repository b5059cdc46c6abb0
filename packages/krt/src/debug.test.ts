/**
 * The debug handler served over HTTP (Istio's `/debug/krtz`): a real node:http server on an
 * ephemeral port, a GET of the dump, the JSON per collection, and nothing left open afterwards.
 */

import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pod, service, type TestPod, type TestService } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { createDebugHandler } from './debug.ts';
import { filter } from './filter.ts';
import { staticCollection } from './static.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

/** Socket and server handles alive in this process. */
function netHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;
}

function getJson(port: number, path: string): Promise<{ status: number; type: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    // agent: false — one connection, closed after the response (no keep-alive pool left behind).
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      // Resolve once the connection is closed, not merely when the body ended.
      req.on('close', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: JSON.parse(text),
          });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

interface Entry {
  uid: number;
  name: string;
  state: {
    kind: string;
    synced: boolean;
    inputCollection?: string;
    outputs: Record<string, unknown>;
    inputs?: Record<string, { outputs: string[]; dependencies: string[] }>;
    dependencies?: string[];
  };
}

describe('debug handler over HTTP', () => {
  it('serves inputs, outputs and dependencies per collection as JSON, and closes cleanly', async () => {
    const signal = stop.signal;
    const debug = createDebugHandler();
    const pods = staticCollection<TestPod>(
      [
        pod('ns', 'web-1', { labels: { app: 'web' }, ip: '10.0.0.1' }),
        pod('ns', 'db-1', { labels: { app: 'db' }, ip: '10.0.0.2' }),
      ],
      { signal, name: 'pods', debug },
    );
    const services = staticCollection<TestService>([service('ns', 'web', { app: 'web' })], {
      signal,
      name: 'services',
      debug,
    });
    const byNs = namespaceIndex(services);
    const workloads = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        ip: p.status?.podIP,
        services: byNs
          .fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))
          .map((s) => s.metadata.name),
      }),
      { signal, name: 'workloads', debug },
    );
    await workloads.waitUntilSynced(signal);

    const handlesBefore = netHandles();
    const server = createServer(debug.httpHandler);
    const port = await listen(server);
    try {
      const all = await getJson(port, '/debug/krtz');
      expect(all.status).toBe(200);
      expect(all.type).toBe('application/json');
      const entries = all.body as Entry[];
      expect(entries.map((e) => e.name)).toEqual(['pods', 'services', 'workloads']);
      const w = entries.find((e) => e.name === 'workloads')!;
      expect(w.state).toMatchObject({ kind: 'collection', synced: true, inputCollection: 'pods' });
      expect(w.state.inputs).toEqual({
        'ns/web-1': { outputs: ['ns/web-1'], dependencies: ['services'] },
        'ns/db-1': { outputs: ['ns/db-1'], dependencies: ['services'] },
      });
      expect(w.state.outputs['ns/web-1']).toEqual({
        metadata: { name: 'web-1', namespace: 'ns', labels: { app: 'web' } },
        ip: '10.0.0.1',
        services: ['web'],
      });
      expect(w.state.dependencies).toEqual(['services']);
      const p = entries.find((e) => e.name === 'pods')!;
      expect(Object.keys(p.state.outputs).sort()).toEqual(['ns/db-1', 'ns/web-1']);

      const one = await getJson(port, '/debug/krtz?name=work');
      expect((one.body as Entry[]).map((e) => e.name)).toEqual(['workloads']);
    } finally {
      await close(server);
    }
    // libuv releases a closed handle in a later loop iteration: wait for it, bounded.
    await waitFor('the closed server handles to be released', () => netHandles() <= handlesBefore);
    expect(netHandles()).toBe(handlesBefore);
  });
});
