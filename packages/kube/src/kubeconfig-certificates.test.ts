import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority } from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createKubeClient, loadKubeConfig } from './create-kube-client.ts';
import { KubeConfigError } from './errors.ts';

// Bad certificate material in a kubeconfig is reported by createKubeClient itself, naming the
// file, context, cluster or user and field, instead of a bare OpenSSL error on the first request.

const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-kc-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ca = createCertificateAuthority();
const alice = ca.issue({ commonName: 'alice', usage: 'client' });
const other = ca.issue({ commonName: 'other', usage: 'client' });
const b64 = (text: string) => Buffer.from(text).toString('base64');
const corruptPem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** A kubeconfig with context "work" → cluster "prod", user "alice"; `fields` are YAML lines. */
function kubeconfig(
  name: string,
  fields: { cluster?: Record<string, string>; user?: Record<string, string> },
) {
  const lines = (o: Record<string, string> = {}) =>
    Object.entries(o)
      .map(([k, v]) => `    ${k}: "${v.replaceAll('\n', '\\n')}"\n`)
      .join('');
  return write(
    name,
    `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: "https://127.0.0.1:6443"
${lines(fields.cluster)}users:
- name: alice
  user:
${lines(fields.user) || '    token: abc\n'}contexts:
- name: work
  context: { cluster: prod, user: alice }
current-context: work
`,
  );
}

const goodUser = { 'client-certificate-data': b64(alice.certPem), 'client-key-data': b64(alice.keyPem) };

interface Case {
  readonly name: string;
  readonly cluster?: Record<string, string>;
  readonly user?: Record<string, string>;
  readonly field: string;
  readonly owner: 'cluster' | 'user';
  readonly message: RegExp;
}

const cases: Case[] = [
  {
    name: 'certificate-authority-data that is not base64',
    cluster: { 'certificate-authority-data': 'not*base64!' },
    field: 'certificate-authority-data',
    owner: 'cluster',
    message: /is not valid base64/,
  },
  {
    name: 'certificate-authority-data holding PEM text instead of base64',
    cluster: { 'certificate-authority-data': ca.certPem },
    field: 'certificate-authority-data',
    owner: 'cluster',
    message: /holds PEM text, not base64: base64-encode it/,
  },
  {
    name: 'certificate-authority-data that is not PEM',
    cluster: { 'certificate-authority-data': b64('hello world') },
    field: 'certificate-authority-data',
    owner: 'cluster',
    message: /does not contain a PEM certificate/,
  },
  {
    name: 'certificate-authority-data with a corrupt certificate',
    cluster: { 'certificate-authority-data': b64(corruptPem) },
    field: 'certificate-authority-data',
    owner: 'cluster',
    message: /is not a valid certificate \(OpenSSL: .+\)/,
  },
  {
    name: 'a certificate-authority file that does not exist',
    cluster: { 'certificate-authority': 'missing-ca.crt' },
    field: 'certificate-authority',
    owner: 'cluster',
    message: /file .*missing-ca\.crt does not exist: fix the path/,
  },
  {
    name: 'client-certificate-data that is not PEM',
    user: { ...goodUser, 'client-certificate-data': b64('garbage') },
    field: 'client-certificate-data',
    owner: 'user',
    message: /does not contain a PEM certificate/,
  },
  {
    name: 'client-key-data that is not a key',
    user: {
      ...goodUser,
      'client-key-data': b64('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
    },
    field: 'client-key-data',
    owner: 'user',
    message: /is not a valid private key \(OpenSSL: .+\)/,
  },
  {
    name: 'a client key that does not match the certificate',
    user: { ...goodUser, 'client-key-data': b64(other.keyPem) },
    field: 'client-key-data',
    owner: 'user',
    message: /client-certificate-data and client-key-data do not match.*key values mismatch/,
  },
  {
    name: 'a client certificate without a key',
    user: { 'client-certificate-data': b64(alice.certPem) },
    field: 'client-key-data',
    owner: 'user',
    message: /has client-certificate-data but no client-key-data or client-key/,
  },
  {
    name: 'a client-certificate file that does not exist',
    user: { 'client-certificate': path.join(dir, 'nope.crt'), 'client-key-data': b64(alice.keyPem) },
    field: 'client-certificate',
    owner: 'user',
    message: /file .*nope\.crt does not exist/,
  },
];

describe('certificate data in a kubeconfig', () => {
  it.each(cases)('$name: names the file, context, $owner and field', (c) => {
    const file = kubeconfig(`${c.field}-${cases.indexOf(c)}.yaml`, { cluster: c.cluster, user: c.user });
    for (const load of [
      () => loadKubeConfig({ kubeconfigPath: file }),
      () => createKubeClient({ kubeconfigPath: file }),
    ]) {
      let err: unknown;
      try {
        load();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(KubeConfigError);
      const e = err as KubeConfigError;
      expect(e.message).toMatch(c.message);
      expect(e.message).toContain(`kubeconfig file ${file}`);
      expect(e.message).toContain('context "work"');
      expect(e.message).toContain(c.owner === 'cluster' ? 'cluster "prod"' : 'user "alice"');
      expect(e.message).toContain(c.field);
      expect(e).toMatchObject({
        file,
        context: 'work',
        field: c.field,
        [c.owner]: c.owner === 'cluster' ? 'prod' : 'alice',
      });
    }
  });

  it('reads a bad certificate file and names it', () => {
    write('bad-key.pem', 'not a key');
    write('good.crt', alice.certPem);
    const file = kubeconfig('bad-key-file.yaml', {
      user: { 'client-certificate': 'good.crt', 'client-key': 'bad-key.pem' },
    });
    expect(() => createKubeClient({ kubeconfigPath: file })).toThrow(
      /kubeconfig file .*bad-key-file\.yaml, context "work", user "alice": client-key file .*bad-key\.pem does not contain a PEM private key/,
    );
  });

  it('accepts valid data and files, resolving relative paths against the kubeconfig directory', () => {
    write('ca.crt', ca.certPem);
    write('alice.crt', alice.certPem);
    write('alice.key', alice.keyPem);
    const files = kubeconfig('good-files.yaml', {
      cluster: { 'certificate-authority': 'ca.crt' },
      user: { 'client-certificate': 'alice.crt', 'client-key': 'alice.key' },
    });
    expect(loadKubeConfig({ kubeconfigPath: files }).getCurrentCluster()?.caFile).toBe(
      path.join(dir, 'ca.crt'),
    );
    const data = kubeconfig('good-data.yaml', {
      cluster: { 'certificate-authority-data': b64(ca.certPem) },
      user: goodUser,
    });
    createKubeClient({ kubeconfigPath: data }).shutdown();
  });
});
