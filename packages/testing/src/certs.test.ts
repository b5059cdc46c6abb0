import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority } from './certs.ts';

describe('createCertificateAuthority', () => {
  it('issues a serving certificate with IP and DNS SANs that verifies against the CA', () => {
    // #region createCertificateAuthority
    // A test CA (ECDSA, no openssl): serving and client certificates for test servers.
    const ca = createCertificateAuthority();
    const pair = ca.issue({
      commonName: 'kube-apiserver',
      hosts: ['127.0.0.1', 'localhost'],
      usage: 'server',
    });
    // #endregion createCertificateAuthority
    const cert = new X509Certificate(pair.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(caCert.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('puts the user in CN and groups in O of a client certificate', () => {
    const ca = createCertificateAuthority();
    const pair = ca.issue({ commonName: 'alice', organizations: ['system:masters', 'dev'], usage: 'client' });
    const cert = new X509Certificate(pair.certPem);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=alice', 'O=dev', 'O=system:masters']);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
  });

  it('gives every CA its own key, so certificates do not cross-verify', () => {
    const a = createCertificateAuthority();
    const b = createCertificateAuthority();
    const cert = new X509Certificate(a.issue({ commonName: 'x', usage: 'client' }).certPem);
    expect(cert.verify(new X509Certificate(b.certPem).publicKey)).toBe(false);
  });
});
