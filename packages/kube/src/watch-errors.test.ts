import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createCertificateAuthority, waitFor } from '@kubeloom/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cm, ScriptedApi } from '../test/scripted-api.ts';
import { WatchResetError } from './api.ts';
import { builtins } from './builtins.ts';
import { ConnectionError } from './connection-error.ts';
import { apiErrorFromStatus } from './errors.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { HttpApiClient } from './http-api-client.ts';
import { InformerEngine } from './shared-informer.ts';

describe('a watch reset (HttpApiClient against a local HTTPS server)', () => {
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'test', hosts: ['127.0.0.1'], usage: 'server' });
  let server: Server;
  let api: HttpApiClient;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => handler(req, res));
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
          caData: Buffer.from(ca.certPem).toString('base64'),
        },
      ],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    api = new HttpApiClient(kc, { requestTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    api.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('says the open watch was reset and that watching again resumes it, not that the server cannot be reached', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: cm('a', '7') })}\n`, () => {
        // The connection drops mid-stream, as when an apiserver restarts or a proxy cuts it.
        setImmediate(() => res.socket?.destroy());
      });
    };
    const events: string[] = [];
    let error: unknown;
    try {
      for await (const ev of api.watch(builtins.ConfigMap, { namespace: 'ns', resourceVersion: '5' })) {
        events.push(ev.type);
      }
    } catch (err) {
      error = err;
    }
    expect(events).toEqual(['ADDED']);
    expect(error).toBeInstanceOf(WatchResetError);
    const message = (error as Error).message;
    expect(message).toMatch(/^watch configmaps in ns: the open watch was reset after 1 event \(/);
    expect(message).toMatch(/watch again from the last resourceVersion received to resume/);
    expect(message).not.toMatch(/cannot reach/);
  });

  it('still says the server cannot be reached when the watch never opened', async () => {
    handler = (req) => req.socket.destroy();
    let error: unknown;
    try {
      for await (const _ev of api.watch(builtins.ConfigMap, { namespace: 'ns' })) break;
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/cannot reach the Kubernetes API server/);
  });
});

describe('watch failures in the informer', () => {
  const stops: AbortController[] = [];
  // Every informer's run(): settles once its signal is aborted, which afterEach checks.
  const runs: Promise<void>[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
  });

  function start(api: ScriptedApi) {
    const logger = recordingLogger();
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger,
      tuning: { initialBackoffMs: 1, maxBackoffMs: 4 },
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(informer.run(stop.signal));
    return { informer, logger };
  }

  it('logs a reset watch as reset and resuming from its resourceVersion', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({ metadata: { resourceVersion: '10' }, items: [] });
    const { informer, logger } = start(api);
    const w0 = await api.watchNumber(0, 10_000);
    w0.push({ type: 'ADDED', object: cm('a', '11') });
    w0.fail(
      new WatchResetError(
        'watch configmaps in ns',
        Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
        1,
      ),
    );
    const w1 = await api.watchNumber(1, 10_000);
    expect(w1.opts.resourceVersion).toBe('11');
    const record = logger.records.find((r) => r.message.startsWith('the watch was reset'));
    expect(record).toMatchObject({
      level: 'info',
      message: 'the watch was reset; resuming from the last resourceVersion',
      fields: { resourceVersion: '11' },
    });
    expect(informer.health().lastError).toMatch(/the open watch was reset/);
    expect(api.lists).toHaveLength(1);
  });

  it('escalates to a relist after 5 failures in a row at the same resourceVersion', async () => {
    const api = new ScriptedApi();
    let call = 0;
    api.listHandler = () => {
      call++;
      return { metadata: { resourceVersion: String(call * 10) }, items: [] };
    };
    // Four watch requests answered with an error, then a watch whose stream cannot be decoded.
    for (let i = 0; i < 4; i++)
      api.watchErrors.push(apiErrorFromStatus(500, { reason: 'InternalError', message: `etcd hiccup ${i}` }));
    const { informer, logger } = start(api);
    const w0 = await api.watchNumber(0, 10_000);
    expect(w0.opts.resourceVersion).toBe('10');
    expect(api.lists).toHaveLength(1);
    w0.push({ type: 'MALFORMED', line: '{"type":"ADDED","obj', error: 'Unexpected end of JSON input' });
    const w1 = await api.watchNumber(1, 10_000);
    expect(w1.opts.resourceVersion).toBe('20');
    expect(api.lists).toHaveLength(2);
    expect(informer.health()).toMatchObject({ lists: 2, relists: 1 });
    expect(logger.records.filter((r) => r.level === 'warn').map((r) => r.message)).toContain(
      'the watch failed 5 times in a row at the same resourceVersion: relisting',
    );
  });

  it('does not relist for failures that make progress, or for connection failures and resets', async () => {
    const api = new ScriptedApi();
    const reset = () =>
      new WatchResetError(
        'watch configmaps in ns',
        Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
        0,
      );
    for (let i = 0; i < 4; i++) {
      api.watchErrors.push(
        new ConnectionError(
          'https://127.0.0.1:1',
          'watch configmaps in ns',
          Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        ),
        reset(),
      );
    }
    const { informer } = start(api);
    // Eight watch failures at resourceVersion 1 that say nothing about it; then ERROR events, each after progress.
    for (let i = 0; i < 6; i++) {
      const w = await api.watchNumber(i, 10_000);
      w.push(
        { type: 'ADDED', object: cm(`o${i}`, String(100 + i)) },
        { type: 'ERROR', status: { code: 500, reason: 'InternalError', message: 'boom' } },
      );
    }
    await api.watchNumber(6, 10_000);
    expect(api.lists).toHaveLength(1);
    expect(informer.health()).toMatchObject({ lists: 1, relists: 0 });
    await waitFor('every object delivered', () => informer.store.size === 6, { timeoutMs: 10_000 });
  });
});
