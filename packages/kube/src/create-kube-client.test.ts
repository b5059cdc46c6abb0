import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKubeClient, KubeConfigError, loadKubeConfig } from './create-kube-client.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-kc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const valid = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: { server: "https://127.0.0.1:6443" }
- name: b
  cluster: { server: "https://127.0.0.1:7443" }
users:
- name: u
  user: { token: abc }
contexts:
- name: first
  context: { cluster: a, user: u }
- name: second
  context: { cluster: b, user: u }
current-context: first
`;

describe('loadKubeConfig / createKubeClient', () => {
  it('loads a file and switches context', () => {
    const p = file('ok.yaml', valid);
    expect(loadKubeConfig({ kubeconfigPath: p }).getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(loadKubeConfig({ kubeconfigPath: p, context: 'second' }).getCurrentCluster()?.server).toBe(
      'https://127.0.0.1:7443',
    );
    const kube = createKubeClient({ kubeconfigPath: p, context: 'second' });
    expect(kube.kubeConfig?.getCurrentContext()).toBe('second');
    kube.shutdown();
  });

  it('names a missing file', () => {
    expect(() => loadKubeConfig({ kubeconfigPath: path.join(dir, 'nope.yaml') })).toThrow(
      /kubeconfig file .*nope\.yaml does not exist/,
    );
  });

  it('reports invalid YAML with the file name', () => {
    const p = file('bad.yaml', 'clusters: [unclosed\n');
    expect(() => loadKubeConfig({ kubeconfigPath: p })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ kubeconfigPath: p })).toThrow(/bad\.yaml is invalid/);
  });

  it('lists the available contexts when asked for an unknown one', () => {
    const p = file('ctx.yaml', valid);
    expect(() => loadKubeConfig({ kubeconfigPath: p, context: 'third' })).toThrow(
      /context "third" is not in .*ctx\.yaml \(available: first, second\)/,
    );
  });

  it('explains a kubeconfig without a usable cluster', () => {
    const p = file('empty.yaml', 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    expect(() => loadKubeConfig({ kubeconfigPath: p })).toThrow(/no cluster found .*set KUBECONFIG/);
    const badUrl = file('url.yaml', valid.replace('https://127.0.0.1:6443', 'not a url'));
    expect(() => loadKubeConfig({ kubeconfigPath: badUrl })).toThrow(/invalid server URL "not a url"/);
  });

  it('refuses in-cluster loading outside a pod', () => {
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      expect(() => loadKubeConfig({ inCluster: true })).toThrow(/not running in a pod/);
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });
});
