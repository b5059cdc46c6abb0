import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority } from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfigError } from '../errors.ts';
import { selectContext } from './kubeconfig-context.ts';
import { findKubeConfig } from './kubeconfig-sources.ts';
import { checkTlsMaterial } from './kubeconfig-tls.ts';

// The in-cluster branch, with a temporary directory standing in for the mounted service account.

const root = mkdtempSync(path.join(tmpdir(), 'kubeloom-sa-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function serviceAccount(files: { token?: string; ca?: string; namespace?: string }): string {
  const dir = mkdtempSync(path.join(root, 'sa-'));
  if (files.token !== undefined) writeFileSync(path.join(dir, 'token'), files.token);
  if (files.ca !== undefined) writeFileSync(path.join(dir, 'ca.crt'), files.ca);
  if (files.namespace !== undefined) writeFileSync(path.join(dir, 'namespace'), files.namespace);
  return dir;
}

const home = mkdtempSync(path.join(root, 'home-'));
const ca = createCertificateAuthority();

describe('in-cluster configuration', () => {
  it('is used when nothing else exists and the pod environment is complete', () => {
    const dir = serviceAccount({ token: 't', ca: ca.certPem, namespace: 'team-a\n' });
    const env = { HOME: home, KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const found = findKubeConfig({ env, serviceAccountDir: dir });
    expect(found.origin).toBe('the in-cluster service account');
    const selected = selectContext(found, undefined);
    expect(selected.cluster).toMatchObject({
      server: 'https://[fd00::1]:443',
      caFile: path.join(dir, 'ca.crt'),
    });
    expect(found.kubeConfig.getContextObject('inClusterContext')?.namespace).toBe('team-a');
    checkTlsMaterial(selected);
  });

  it('names the missing CA file of the service account', () => {
    const dir = serviceAccount({ token: 't' });
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const selected = selectContext(
      findKubeConfig({ env, inCluster: true, serviceAccountDir: dir }),
      undefined,
    );
    expect(() => checkTlsMaterial(selected)).toThrow(
      /the in-cluster service account, context "inClusterContext", cluster "inCluster": certificate-authority file .*ca\.crt does not exist/,
    );
  });

  it('lists what is missing when the token exists but the service env vars do not', () => {
    const dir = serviceAccount({ token: 't', ca: ca.certPem });
    let err: unknown;
    try {
      findKubeConfig({ env: { HOME: home }, serviceAccountDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KubeConfigError);
    const message = (err as KubeConfigError).message;
    expect(message).toMatch(
      /token exists, .*ca\.crt exists, \$KUBERNETES_SERVICE_HOST is not set, \$KUBERNETES_SERVICE_PORT is not set/,
    );
    expect(() => findKubeConfig({ env: {}, inCluster: true, serviceAccountDir: dir })).toThrow(
      /inCluster was requested but KUBERNETES_SERVICE_HOST is not set; KUBERNETES_SERVICE_PORT is not set: this process is not running in a pod/,
    );
  });
});
