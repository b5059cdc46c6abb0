import { createPrivateKey, X509Certificate } from 'node:crypto';
import { expect, it } from 'vitest';
import { selfSignedCertificate } from './self-signed.ts';

it('issues a certificate Node parses, for the given names and addresses, signed by its own key', () => {
  const { cert, key } = selfSignedCertificate(
    ['localhost', '127.0.0.1', '::1', 'metrics.svc'],
    new Date('2026-12-01T00:00:00Z'),
  );
  const x = new X509Certificate(cert);
  expect(x.subject).toBe('CN=localhost');
  expect(x.subjectAltName).toBe(
    'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:metrics.svc',
  );
  expect(x.checkHost('metrics.svc')).toBe('metrics.svc');
  expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(x.verify(x.publicKey)).toBe(true);
  expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
  expect(new Date(x.validTo).getTime()).toBeGreaterThan(new Date('2027-11-30T00:00:00Z').getTime());
  expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
});
