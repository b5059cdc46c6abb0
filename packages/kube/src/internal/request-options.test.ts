import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority } from '@kubeloom/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiAgents } from './api-agent.ts';
import { findKubeConfig } from './kubeconfig-sources.ts';
import { credentialsRefresh, RequestOptions, TOKEN_FILE_REFRESH_MS } from './request-options.ts';

// The request options of the in-cluster service account (a token file client-node reads) are
// applied once a minute, not before every request; other kinds of credentials keep their rules.

const root = mkdtempSync(path.join(tmpdir(), 'kubeloom-request-options-'));
const ca = createCertificateAuthority();
const agentsToClose: ApiAgents[] = [];
afterAll(() => {
  for (const agents of agentsToClose) agents.destroy();
  rmSync(root, { recursive: true, force: true });
});

function inCluster(token: string): { kubeConfig: KubeConfig; dir: string } {
  const dir = mkdtempSync(path.join(root, 'sa-'));
  writeFileSync(path.join(dir, 'token'), token);
  writeFileSync(path.join(dir, 'ca.crt'), ca.certPem);
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  return { kubeConfig: findKubeConfig({ env, inCluster: true, serviceAccountDir: dir }).kubeConfig, dir };
}

function requestOptions(kubeConfig: KubeConfig): RequestOptions {
  const agents = new ApiAgents((tls) => new https.Agent({ ca: tls.ca }));
  agentsToClose.push(agents);
  return new RequestOptions({ kubeConfig, agents });
}

function authorization(opts: https.RequestOptions): string | undefined {
  return (opts.headers as Record<string, string>).Authorization;
}

function withUser(user: Record<string, unknown>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('request options', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-03T12:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reuses the in-cluster token and CA for a minute, then reads the rotated token', async () => {
    const { kubeConfig, dir } = inCluster('token-1');
    expect(credentialsRefresh(kubeConfig)).toEqual({ kind: 'ttl', ms: TOKEN_FILE_REFRESH_MS });
    const options = requestOptions(kubeConfig);
    const first = await options.get();
    expect(authorization(first)).toBe('Bearer token-1');
    expect(first.agent).toBeInstanceOf(https.Agent);

    // The kubelet rotates the projected token: within the minute the applied options are reused
    // as they are (no file is read); after it, the new token is sent.
    writeFileSync(path.join(dir, 'token'), 'token-2');
    vi.setSystemTime(Date.now() + TOKEN_FILE_REFRESH_MS - 1_000);
    expect(await options.get()).toBe(first);
    vi.setSystemTime(Date.now() + 2_000);
    const next = await options.get();
    expect(next).not.toBe(first);
    expect(authorization(next)).toBe('Bearer token-2');
    expect(next.agent).toBe(first.agent); // the same client certificate (none): the same agent
  });

  it('does not keep a failure: a token file that cannot be read is tried again on the next request', async () => {
    const { kubeConfig, dir } = inCluster('token-1');
    rmSync(path.join(dir, 'token'));
    const options = requestOptions(kubeConfig);
    await expect(options.get()).rejects.toThrow(/ENOENT/);
    writeFileSync(path.join(dir, 'token'), 'token-3');
    expect(authorization(await options.get())).toBe('Bearer token-3');
  });

  it('asks an exec plugin or another auth-provider before every request', async () => {
    expect(
      credentialsRefresh(withUser({ exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1' } })),
    ).toEqual({
      kind: 'per-request',
    });
    expect(
      credentialsRefresh(withUser({ authProvider: { name: 'oidc', config: { 'id-token': 'x' } } })),
    ).toEqual({
      kind: 'per-request',
    });
  });

  it('applies a static token once, and again only after reset', async () => {
    const kubeConfig = withUser({ token: 'static-token' });
    expect(credentialsRefresh(kubeConfig)).toEqual({ kind: 'static' });
    const options = requestOptions(kubeConfig);
    const first = await options.get();
    expect(authorization(first)).toBe('Bearer static-token');
    vi.setSystemTime(Date.now() + 24 * 3_600_000);
    expect(await options.get()).toBe(first);
    options.reset();
    const again = await options.get();
    expect(again).not.toBe(first);
    expect(authorization(again)).toBe('Bearer static-token');
  });
});
