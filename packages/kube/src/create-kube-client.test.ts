import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKubeClient, loadKubeConfig } from './create-kube-client.ts';
import { KubeConfigError } from './errors.ts';

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
    expect(() => loadKubeConfig({ inCluster: true, env: {} })).toThrow(/not running in a pod/);
  });
});

/** Catches the KubeConfigError that `fn` throws (fails the test if it throws anything else). */
function configError(fn: () => unknown): KubeConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KubeConfigError);
    return err as KubeConfigError;
  }
  throw new Error('expected a KubeConfigError, nothing was thrown');
}

describe('where the configuration comes from', () => {
  const emptyHome = mkdtempSync(path.join(dir, 'home-'));

  it('with no kubeconfig anywhere and no pod, throws KubeConfigError listing every place searched', () => {
    const env = { HOME: emptyHome };
    for (const fn of [() => loadKubeConfig({ env }), () => createKubeClient({ env })]) {
      const err = configError(fn);
      expect(err.message).toMatch(/no Kubernetes configuration found/);
      for (const place of [
        /KUBECONFIG.*not set/,
        new RegExp(`${path.join(emptyHome, '.kube', 'config')}.*does not exist`),
        /\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/token/,
        /\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/ca\.crt/,
        /KUBERNETES_SERVICE_HOST.*not set/,
        /KUBERNETES_SERVICE_PORT.*not set/,
      ]) {
        expect(err.message).toMatch(place);
        expect(err.searched.some((s) => place.test(s))).toBe(true);
      }
      expect(err.message).toMatch(/set KUBECONFIG.*kubeconfigPath/);
    }
  });

  it('uses ~/.kube/config under the HOME of the given environment', () => {
    const home = mkdtempSync(path.join(dir, 'home-'));
    mkdirSync(path.join(home, '.kube'));
    writeFileSync(path.join(home, '.kube', 'config'), valid);
    const kc = loadKubeConfig({ env: { HOME: home } });
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
  });

  it('names a KUBECONFIG entry that does not exist', () => {
    const ok = file('kc-ok.yaml', valid);
    const missing = path.join(dir, 'kc-missing.yaml');
    const err = configError(() =>
      loadKubeConfig({ env: { KUBECONFIG: [ok, missing].join(path.delimiter) } }),
    );
    expect(err.message).toMatch(/KUBECONFIG names .*kc-missing\.yaml, which does not exist/);
    expect(err.message).toMatch(/fix the path or remove it from KUBECONFIG/);
    expect(err.file).toBe(missing);
  });

  it('merges KUBECONFIG files, the first to define a name or current-context wins (as kubectl)', () => {
    const first = file('merge-1.yaml', valid);
    const second = file(
      'merge-2.yaml',
      `clusters:
- name: a
  cluster: { server: "https://10.0.0.1:1" }
- name: c
  cluster: { server: "https://127.0.0.1:8443" }
users:
- name: v
  user: { token: def }
contexts:
- name: third
  context: { cluster: c, user: v }
current-context: third
`,
    );
    const env = { KUBECONFIG: [first, second].join(path.delimiter) };
    expect(loadKubeConfig({ env }).getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(loadKubeConfig({ env, context: 'third' }).getCurrentCluster()?.server).toBe(
      'https://127.0.0.1:8443',
    );
  });

  it('names the file of a context whose cluster or user is missing, and of a missing current-context', () => {
    const noCluster = file(
      'no-cluster.yaml',
      valid.replace('{ cluster: b, user: u }', '{ cluster: zz, user: u }'),
    );
    let err = configError(() => loadKubeConfig({ kubeconfigPath: noCluster, context: 'second' }));
    expect(err.message).toMatch(
      /context "second" in kubeconfig file .*no-cluster\.yaml names cluster "zz", which is not defined \(clusters: a, b\)/,
    );
    expect(err).toMatchObject({ file: noCluster, context: 'second', cluster: 'zz', field: 'cluster' });

    const noUser = file(
      'no-user.yaml',
      valid.replace('{ cluster: b, user: u }', '{ cluster: b, user: bob }'),
    );
    err = configError(() => createKubeClient({ kubeconfigPath: noUser, context: 'second' }));
    expect(err.message).toMatch(
      /context "second" in .*no-user\.yaml names user "bob", which is not defined \(users: u\)/,
    );
    expect(err).toMatchObject({ file: noUser, context: 'second', user: 'bob', field: 'user' });

    const noCurrent = file(
      'no-current.yaml',
      valid.replace('current-context: first', 'current-context: gone'),
    );
    err = configError(() => loadKubeConfig({ kubeconfigPath: noCurrent }));
    expect(err.message).toMatch(
      /current-context "gone" .*no-current\.yaml.* not defined \(contexts: first, second\)/,
    );
    expect(err.message).toMatch(/kubectl config use-context/);
  });

  it('names the file and the available contexts for an unknown context', () => {
    const p = file('unknown-ctx.yaml', valid);
    const err = configError(() => createKubeClient({ kubeconfigPath: p, context: 'nope' }));
    expect(err).toMatchObject({ file: p, context: 'nope', field: 'context' });
  });
});
