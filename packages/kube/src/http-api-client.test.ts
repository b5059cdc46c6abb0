import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createCertificateAuthority, waitFor } from '@kubeloom/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localKubeConfig } from '../test/local-kubeconfig.ts';
import type { ApiClient, WatchEvent } from './api.ts';
import { WatchIdleTimeoutError } from './api.ts';
import { builtins } from './builtins.ts';
import { ConnectionError } from './connection-error.ts';
import { createApiClient } from './create-kube-client.ts';
import { ConflictError, InvalidError, isNotFound, NotFoundError, TooManyRequestsError } from './errors.ts';
import { HttpApiClient } from './http-api-client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('createApiClient, the HTTPS transport (against a local HTTPS server)', () => {
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'test', hosts: ['127.0.0.1'], usage: 'server' });
  const client = ca.issue({ commonName: 'tester', organizations: ['g'], usage: 'client' });
  let server: Server;
  let handler: Handler;
  let api: ApiClient;
  const sockets = new Set<Socket>();
  const seen: Array<{
    method: string;
    url: string;
    headers: IncomingMessage['headers'];
    body: string;
    cn?: string;
  }> = [];

  beforeEach(async () => {
    seen.length = 0;
    server = createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const peer = (
            req.socket as unknown as { getPeerCertificate(): { subject?: { CN?: string } } }
          ).getPeerCertificate();
          seen.push({
            method: req.method!,
            url: req.url!,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
            ...(peer.subject?.CN ? { cn: peer.subject.CN } : {}),
          });
          handler(req, res);
        });
      },
    );
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const kc = localKubeConfig({
      port,
      ca,
      user: {
        certData: Buffer.from(client.certPem).toString('base64'),
        keyData: Buffer.from(client.keyPem).toString('base64'),
      },
    });
    api = createApiClient({ kubeConfig: kc, http: { requestTimeoutMs: 2000 } });
  });

  afterEach(async () => {
    api.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  /** Replies `body` as JSON with status `code` (headers set on `res` before are sent too). */
  const json = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('sends typed requests with client-certificate auth, the right paths, queries and content types', async () => {
    handler = (req, res) =>
      json(res, req.method === 'POST' ? 201 : 200, { kind: 'ConfigMap', metadata: { name: 'x' } });
    await api.get({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' });
    await api.list(builtins.Deployment, {
      namespace: 'ns',
      labelSelector: 'app=a',
      limit: 5,
      continue: 'tok',
    });
    await api.create(
      builtins.ConfigMap,
      { metadata: { name: 'x', namespace: 'ns' } },
      { fieldManager: 'me', dryRun: 'All' },
    );
    await api.patch(
      { resource: builtins.ConfigMap, name: 'x', namespace: 'ns' },
      { data: { a: '1' } },
      { type: 'apply', fieldManager: 'me', force: true },
    );
    await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: 'ns' },
      { status: {} },
      { type: 'merge', subresource: 'status' },
    );
    await api.delete(
      { resource: builtins.ConfigMap, name: 'x', namespace: 'ns' },
      {
        preconditions: { resourceVersion: '7' },
        propagationPolicy: 'Foreground',
      },
    );
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/v1/namespaces/ns/configmaps/x',
      'GET /apis/apps/v1/namespaces/ns/deployments?labelSelector=app%3Da&limit=5&continue=tok',
      'POST /api/v1/namespaces/ns/configmaps?fieldManager=me&dryRun=All',
      'PATCH /api/v1/namespaces/ns/configmaps/x?fieldManager=me&force=true',
      'PATCH /apis/apps/v1/namespaces/ns/deployments/d/status',
      'DELETE /api/v1/namespaces/ns/configmaps/x',
    ]);
    expect(seen[3]!.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(seen[4]!.headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(seen[5]!.body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { resourceVersion: '7' },
      propagationPolicy: 'Foreground',
    });
    expect(seen.every((s) => s.cn === 'tester')).toBe(true);
  });

  it('maps Status bodies to typed errors with reason, causes and Retry-After', async () => {
    const statuses: Array<[number, unknown, Record<string, string>?]> = [
      [404, { kind: 'Status', reason: 'NotFound', code: 404, message: 'configmaps "x" not found' }],
      [409, { kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' }],
      [
        422,
        {
          kind: 'Status',
          reason: 'Invalid',
          code: 422,
          message: 'bad',
          details: {
            causes: [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'must be >= 0' }],
          },
        },
      ],
      [
        429,
        { kind: 'Status', reason: 'TooManyRequests', code: 429, message: 'slow down' },
        { 'Retry-After': '3' },
      ],
    ];
    handler = (_req, res) => {
      const [code, body, headers = {}] = statuses.shift()!;
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
      json(res, code, body);
    };
    const notFound = await api
      .get({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(isNotFound(notFound)).toBe(true);
    expect((notFound as Error).message).toBe('get configmaps ns/x: configmaps "x" not found');
    await expect(
      api.update(builtins.ConfigMap, { metadata: { name: 'x', namespace: 'ns', resourceVersion: '1' } }),
    ).rejects.toBeInstanceOf(ConflictError);
    const invalid = (await api
      .create(builtins.ConfigMap, { metadata: { name: 'x', namespace: 'ns' } })
      .catch((e: unknown) => e)) as InvalidError;
    expect(invalid).toBeInstanceOf(InvalidError);
    expect(invalid.causes).toEqual([
      { field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'must be >= 0' },
    ]);
    const tooMany = (await api.list(builtins.ConfigMap).catch((e: unknown) => e)) as TooManyRequestsError;
    expect(tooMany).toBeInstanceOf(TooManyRequestsError);
    expect(tooMany.retryAfterSeconds).toBe(3);
  });

  it('decodes a watch stream split at arbitrary byte boundaries, reporting malformed lines and unknown types', async () => {
    const lines = [
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'ä-1', resourceVersion: '1' } } }),
      '{"type":"MODIFIED","object":{"metadata":{"name":"broken"',
      JSON.stringify({ type: 'SURPRISE', object: {} }),
      JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }),
      JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }),
    ];
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      let i = 0;
      const tick = (): void => {
        if (i >= bytes.length) {
          res.end();
          return;
        }
        res.write(bytes.subarray(i, i + 7));
        i += 7;
        setImmediate(tick);
      };
      tick();
    };
    const events: WatchEvent[] = [];
    for await (const ev of api.watch(builtins.ConfigMap, { resourceVersion: '0', allowWatchBookmarks: true }))
      events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MALFORMED', 'UNKNOWN', 'BOOKMARK', 'ERROR']);
    expect((events[0] as { object: { metadata: { name: string } } }).object.metadata.name).toBe('ä-1');
    expect(seen[0]!.url).toBe('/api/v1/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true');
  });

  it('ends a silent watch with WatchIdleTimeoutError and frees its socket', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      // then silence
    };
    const events: string[] = [];
    const consume = async () => {
      // The idle window also covers connecting and a stalled event loop (timers run before pending
      // socket reads), so it is wide enough that a loaded machine still reads ADDED before it ends.
      for await (const ev of api.watch(builtins.ConfigMap, { idleTimeoutMs: 2_000 })) events.push(ev.type);
    };
    await expect(consume()).rejects.toBeInstanceOf(WatchIdleTimeoutError);
    expect(events).toEqual(['ADDED']);
    await waitFor('every socket to close', () => sockets.size === 0);
  });

  it('stops a watch when its signal aborts, and when the consumer breaks out', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
    };
    const stop = new AbortController();
    const seenTypes: string[] = [];
    const done = (async () => {
      for await (const ev of api.watch(builtins.ConfigMap, { signal: stop.signal })) {
        seenTypes.push(ev.type);
        stop.abort();
      }
    })();
    await done;
    expect(seenTypes).toEqual(['ADDED']);
    for await (const _ev of api.watch(builtins.ConfigMap, {})) break;
    await waitFor('every socket to close', () => sockets.size === 0);
  });

  it('names the server in a connection error', async () => {
    const down = new HttpApiClient(localKubeConfig({ port: 1, ca }));
    const err = await down.get({ resource: builtins.Namespace, name: 'default' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).code).toBe('ECONNREFUSED');
    expect((err as Error).message).toMatch(
      /cannot reach the Kubernetes API server at https:\/\/127\.0\.0\.1:1/,
    );
    down.close();
  });

  it('refuses by-name requests on a namespaced resource without a namespace, before any request', async () => {
    handler = (_req, res) => json(res, 200, {});
    await expect(api.get({ resource: builtins.ConfigMap, name: 'x' })).rejects.toThrow(
      /get configmaps\/x: ConfigMap is namespaced, so a namespace is required/,
    );
    await expect(api.delete({ resource: builtins.ConfigMap, name: 'x' })).rejects.toThrow(TypeError);
    await expect(api.create(builtins.ConfigMap, { metadata: { name: 'x' } })).rejects.toThrow(
      /create configmaps\/x/,
    );
    await expect(
      api.patch({ resource: builtins.ConfigMap, name: 'x' }, {}, { type: 'merge' }),
    ).rejects.toThrow(TypeError);
    await api.get({ resource: builtins.Namespace, name: 'default' });
    await api.list(builtins.ConfigMap);
    expect(seen.map((r) => r.url)).toEqual(['/api/v1/namespaces/default', '/api/v1/configmaps']);
  });

  it('close() lets in-flight requests finish and closes idle connections', async () => {
    let release: () => void = () => {};
    handler = (req, res) => {
      if (req.url?.includes('slow')) {
        release = () => json(res, 200, { metadata: { name: 'slow' } });
      } else json(res, 200, { metadata: { name: 'fast' } });
    };
    await api.get({ resource: builtins.Namespace, name: 'fast' });
    const slow = api.get({ resource: builtins.Namespace, name: 'slow' });
    await waitFor('both requests to reach the server', () => seen.length >= 2);
    api.close();
    release();
    await expect(slow).resolves.toMatchObject({ metadata: { name: 'slow' } });
    await waitFor('every socket to close', () => sockets.size === 0);
    // The client stays usable after close().
    await expect(api.get({ resource: builtins.Namespace, name: 'fast' })).resolves.toMatchObject({
      metadata: { name: 'fast' },
    });
  });

  it('await using releases every socket, an open watch and an idle connection included', async () => {
    handler = (req, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      } else json(res, 200, { metadata: { name: 'fast' } });
    };
    let watching: Promise<unknown> = Promise.resolve();
    {
      await using disposable = api;
      const events = disposable.watch(builtins.ConfigMap, {})[Symbol.asyncIterator]();
      expect((await events.next()).value).toMatchObject({ type: 'ADDED' });
      watching = events.next().catch((e: unknown) => e);
      await disposable.get({ resource: builtins.Namespace, name: 'fast' }); // leaves an idle keep-alive socket
      expect(sockets.size).toBe(2);
    }
    await waitFor('every socket to close', () => sockets.size === 0);
    expect(await watching).toBeDefined(); // the open watch ended (with a reset or an end)
  });

  it('refuses server-side apply without a field manager and strategic merge on custom resources', async () => {
    handler = (_req, res) => json(res, 200, {});
    await expect(
      api.patch({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' }, {}, { type: 'apply' }),
    ).rejects.toThrow(/needs a fieldManager/);
    const crd = {
      ...builtins.ConfigMap,
      group: 'example.com',
      kind: 'Widget',
      plural: 'widgets',
      strategicMergePatch: false,
    };
    await expect(
      api.patch({ resource: crd, name: 'x', namespace: 'ns' }, {}, { type: 'strategic' }),
    ).rejects.toThrow(/strategic merge patch is not supported for Widget/);
    // a missing or unknown type (an untyped caller, or the old positional form) names the valid ones
    await expect(
      api.patch({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' }, {}, undefined as never),
    ).rejects.toThrow(/patch configmaps\/x: unknown patch type undefined.*merge, json, strategic, apply/);
    await expect(
      api.patch({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' }, {}, { type: 'yaml' as never }),
    ).rejects.toThrow(/unknown patch type "yaml"/);
    expect(seen).toHaveLength(0);
  });
});
