import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { createCertificateAuthority, waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ConnectProxy, type ConnectProxyOptions, startConnectProxy } from '../test/connect-proxy.ts';
import { localKubeConfig } from '../test/local-kubeconfig.ts';
import { startSocks5Proxy } from '../test/socks5-proxy.ts';
import { builtins } from './builtins.ts';
import { ConnectionError } from './connection-error.ts';
import { loadKubeConfig } from './create-kube-client.ts';
import { KubeConfigError } from './errors.ts';
import { HttpApiClient } from './http-api-client.ts';

const ca = createCertificateAuthority();
/** The API server's name resolves only at the proxies (their `hosts`): a direct dial fails. */
const API_HOST = 'api.proxy.test';
const serving = ca.issue({ commonName: 'kube', hosts: ['127.0.0.1', API_HOST], usage: 'server' });
const proxyServing = ca.issue({ commonName: 'proxy', hosts: ['127.0.0.1'], usage: 'server' });
const hosts = { [API_HOST]: '127.0.0.1' };

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A local API server: a ConfigMap `x` by name, a list, and a watch that sends one event and ends. */
async function apiServer(): Promise<number> {
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => answer(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return (server.address() as AddressInfo).port;
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url!, 'https://x');
  res.setHeader('Content-Type', 'application/json');
  if (url.searchParams.get('watch') === 'true') {
    res.end(
      `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'w', resourceVersion: '2' } } })}\n`,
    );
  } else if (url.pathname.endsWith('/configmaps/x')) {
    res.end(JSON.stringify({ metadata: { name: 'x', namespace: 'ns' } }));
  } else {
    res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [{ metadata: { name: 'x' } }] }));
  }
}

async function proxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const p = await startConnectProxy({ hosts, ...options });
  cleanups.push(() => p.close());
  return p;
}

/** A client of the API server at `API_HOST:port` through `proxyUrl`, disposed after the test. */
function client(port: number, proxyUrl: string, options: { maxSockets?: number } = {}): HttpApiClient {
  const kc = localKubeConfig({ server: `https://${API_HOST}:${port}`, ca, proxyUrl });
  const api = new HttpApiClient(kc, {
    requestTimeoutMs: 600_000 /* longer than any wait here: no tunnel gives up by itself */,
    ...options,
  });
  cleanups.push(() => api[Symbol.asyncDispose]());
  return api;
}

/** `http://user:password@127.0.0.1:port` from a proxy's URL. */
const withUser = (url: string, userinfo: string) => url.replace('://', `://${userinfo}@`);

async function firstWatchEvent(api: HttpApiClient, signal?: AbortSignal): Promise<string> {
  for await (const ev of api.watch(builtins.ConfigMap, { namespace: 'ns', ...(signal ? { signal } : {}) }))
    return (ev as { object: { metadata: { name: string } } }).object.metadata.name;
  throw new Error('the watch ended without an event');
}

const getX = (api: HttpApiClient, signal?: AbortSignal) =>
  api.get({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' }, signal ? { signal } : {});

describe('a kubeconfig proxy-url: every connection tunnels through the proxy', () => {
  it('sends requests and watches (TLS transport and agent) through an http:// proxy with basic credentials, reusing the tunnel', async () => {
    const port = await apiServer();
    const p = await proxy({ credentials: 'alice:s:cret' });
    const api = client(port, withUser(p.url, 'alice:s%3Acret'));
    expect((await getX(api)).metadata?.name).toBe('x');
    expect((await api.list(builtins.ConfigMap, { namespace: 'ns' })).items).toHaveLength(1);
    expect(p.connects).toHaveLength(1); // the agent keeps the tunnel for the next request
    expect(await firstWatchEvent(api)).toBe('w');
    expect(p.connects).toHaveLength(2); // the watch had a tunnel of its own
    const limited = client(port, withUser(p.url, 'alice:s%3Acret'), { maxSockets: 2 });
    expect(await firstWatchEvent(limited)).toBe('w'); // through node:https and the agent
    expect(p.connects).toEqual(
      Array.from({ length: 3 }, () => ({
        target: `${API_HOST}:${port}`,
        authorization: `Basic ${Buffer.from('alice:s:cret').toString('base64')}`,
      })),
    );
    await api[Symbol.asyncDispose]();
    await limited[Symbol.asyncDispose]();
    await waitFor('every tunnel to close', () => p.openConnections() === 0);
  });

  it('talks TLS to an https:// proxy (trusting the cluster CA), then TLS to the server inside', async () => {
    const port = await apiServer();
    const p = await proxy({ tls: { cert: proxyServing.certPem, key: proxyServing.keyPem } });
    expect(p.url).toMatch(/^https:/);
    const api = client(port, p.url);
    expect((await getX(api)).metadata?.name).toBe('x');
    expect(await firstWatchEvent(api)).toBe('w');
    expect(p.connects.map((c) => c.target)).toEqual([`${API_HOST}:${port}`, `${API_HOST}:${port}`]);
  });

  it('tunnels through a socks5:// proxy, with user name and password, the host name resolved by the proxy', async () => {
    const port = await apiServer();
    const p = await startSocks5Proxy({ credentials: 'bob:pw', hosts });
    cleanups.push(() => p.close());
    const api = client(port, withUser(p.url, 'bob:pw'));
    expect((await getX(api)).metadata?.name).toBe('x');
    expect(await firstWatchEvent(api)).toBe('w');
    expect(p.connects).toEqual([
      { target: `${API_HOST}:${port}`, credentials: 'bob:pw' },
      { target: `${API_HOST}:${port}`, credentials: 'bob:pw' },
    ]);
    const wrong = client(port, withUser(p.url, 'bob:nope'));
    const err = await getX(wrong).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toMatch(
      /SOCKS5 CONNECT api\.proxy\.test:\d+ through proxy socks5:\/\/bob:xxxxx@127\.0\.0\.1:\d+ failed: the proxy rejected the user name and password/,
    );
    expect((err as Error).message).not.toContain('nope');
  });

  it('reports a refused CONNECT (407, 502) as a ConnectionError naming the proxy without its password', async () => {
    const port = await apiServer();
    const p = await proxy({ credentials: 'alice:right' });
    const api = client(port, withUser(p.url, 'alice:wrong'));
    const err = await getX(api).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).code).toBe('ERR_PROXY_TUNNEL');
    const proxyName = `http://alice:xxxxx@127.0.0.1:${new URL(p.url).port}`;
    expect((err as Error).message).toBe(
      `get configmaps ns/x: cannot reach the Kubernetes API server at https://${API_HOST}:${port} through its proxy: CONNECT ${API_HOST}:${port} through proxy ${proxyName} was refused: 407 Proxy Authentication Required — check the proxy credentials in proxy-url`,
    );
    // A watch fails the same way.
    const watchErr = await firstWatchEvent(api).catch((e: unknown) => e);
    expect(watchErr).toBeInstanceOf(ConnectionError);
    expect((watchErr as Error).message).toMatch(/^watch configmaps in ns: .* was refused: 407/);
    const noCredentials = client(port, p.url);
    expect(String(await getX(noCredentials).catch((e: unknown) => e))).toMatch(
      /407 Proxy Authentication Required — the proxy wants credentials: put them in proxy-url/,
    );

    const gateway = await proxy({ refuse: '502 Bad Gateway' });
    const err502 = await getX(client(port, gateway.url)).catch((e: unknown) => e);
    expect(err502).toBeInstanceOf(ConnectionError);
    expect((err502 as Error).message).toMatch(
      /was refused: 502 Bad Gateway — the proxy could not reach the API server/,
    );
  });

  it('reports a proxy that is down as a ConnectionError with the socket error code', async () => {
    const port = await apiServer();
    const closed = await proxy();
    await closed.close();
    const err = await getX(client(port, withUser(closed.url, 'alice:secret'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).code).toBe('ECONNREFUSED');
    expect((err as Error).message).toMatch(
      /cannot connect to proxy http:\/\/alice:xxxxx@127\.0\.0\.1:\d+ \(to reach api\.proxy\.test:\d+\): connect ECONNREFUSED/,
    );
    expect((err as Error).message).not.toContain('secret');
  });

  it('aborts while the proxy has not answered CONNECT, leaving no socket, on every path', async () => {
    const port = await apiServer();
    const p = await proxy({ hang: true });
    const paths: Array<[string, (api: HttpApiClient, signal: AbortSignal) => Promise<unknown>]> = [
      ['a request', (api, signal) => getX(api, signal)],
      ['a watch', (api, signal) => firstWatchEvent(api, signal)],
    ];
    for (const [what, run] of paths) {
      for (const maxSockets of [undefined, 2]) {
        const api = client(port, p.url, maxSockets ? { maxSockets } : {});
        const stop = new AbortController();
        const before = p.connects.length;
        const pending = run(api, stop.signal).then(
          () => 'resolved',
          (e: unknown) => e,
        );
        await waitFor(`the proxy to receive the CONNECT of ${what}`, () => p.connects.length > before);
        stop.abort();
        const outcome = await pending;
        // A watch aborted by its signal ends; a request rejects with the abort.
        if (what === 'a request') expect((outcome as Error).name).toBe('AbortError');
        await waitFor(`the connection of ${what} to close`, () => p.openConnections() === 0);
      }
    }
  });

  it('aborts during the TLS handshake inside the tunnel, leaving no socket', async () => {
    // Accepts, reads and never answers the ClientHello.
    const held = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      held.add(s);
      s.on('close', () => held.delete(s));
      s.on('end', () => s.destroy());
      s.resume();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      for (const s of held) s.destroy();
      return new Promise((r) => silent.close(r));
    });
    const p = await proxy();
    const api = client((silent.address() as AddressInfo).port, p.url);
    for (const run of [getX, firstWatchEvent]) {
      const stop = new AbortController();
      const pending = run(api, stop.signal).catch((e: unknown) => e);
      await waitFor('the tunnel to the silent server', () => held.size === 1);
      stop.abort();
      await pending;
      await waitFor('the tunnel to close', () => p.openConnections() === 0 && held.size === 0);
    }
  });

  it('ignores HTTPS_PROXY: only the kubeconfig proxy-url counts', async () => {
    const port = await apiServer();
    const p = await proxy();
    vi.stubEnv('HTTPS_PROXY', p.url);
    vi.stubEnv('https_proxy', p.url);
    cleanups.push(() => vi.unstubAllEnvs());
    const api = new HttpApiClient(localKubeConfig({ port, ca }));
    cleanups.push(() => api[Symbol.asyncDispose]());
    expect((await getX(api)).metadata?.name).toBe('x');
    expect(p.connects).toEqual([]);
  });

  it('refuses an unsupported or malformed proxy-url when the client is created', () => {
    const kc = localKubeConfig({ port: 1, ca, proxyUrl: 'socks4://u:pw@127.0.0.1:1080' });
    expect(() => new HttpApiClient(kc)).toThrow(
      'proxy-url socks4://u:xxxxx@127.0.0.1:1080 has the unsupported scheme "socks4": kubeloom, like kubectl, supports http://, https:// and socks5:// proxies',
    );
    const err = (() => {
      try {
        loadKubeConfig({ kubeConfig: kc });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(KubeConfigError);
    expect((err as KubeConfigError).field).toBe('proxy-url');
    expect((err as Error).message).toMatch(/cluster "c": proxy-url socks4:\/\/u:xxxxx@.*unsupported scheme/);
    const malformed = localKubeConfig({ port: 1, ca, proxyUrl: 'http://u:pw@proxy host:3128' });
    expect(() => new HttpApiClient(malformed)).toThrow(
      'proxy-url "http://xxxxx@proxy host:3128" is not a URL: use e.g. http://proxy.example:3128',
    );
  });
});
