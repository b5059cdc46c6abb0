/**
 * A self-signed serving certificate for the metrics endpoint when no certificate is mounted, as
 * controller-runtime's secure metrics server generates one. ECDSA P-256, valid one year, the
 * host names and addresses as subject alternative names. Scrapers authenticate the operator
 * only as far as they trust this certificate; mount a real one with `--metrics-cert-dir`.
 *
 * @module
 */

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** DER: tag, length, content. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

function objectId(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const part of rest) {
    const base128 = [part & 0x7f];
    for (let v = part >>> 7; v > 0; v >>>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return der(0x17, Buffer.from(`${s}Z`, 'ascii'));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(all.flatMap((g) => [Number.parseInt(g, 16) >> 8, Number.parseInt(g, 16) & 0xff]));
}

/** A PEM certificate and key for `hosts` (DNS names and IP addresses). */
export function selfSignedCertificate(
  hosts: readonly string[],
  now = new Date(),
): { cert: string; key: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = der(0x30, objectId('1.2.840.10045.4.3.2'));
  const name = der(
    0x30,
    der(0x31, der(0x30, objectId('2.5.4.3'), der(0x0c, Buffer.from(hosts[0] ?? 'localhost')))),
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f; // positive
  const san = der(
    0x30,
    ...hosts.map((h) => (isIP(h) ? der(0x87, ipBytes(h)) : der(0x82, Buffer.from(h, 'ascii')))),
  );
  const extensions = der(
    0xa3,
    der(
      0x30,
      der(
        0x30,
        objectId('2.5.29.15'),
        der(0x01, Buffer.from([0xff])),
        der(0x04, der(0x03, Buffer.from([0x07, 0x80]))),
      ),
      der(0x30, objectId('2.5.29.37'), der(0x04, der(0x30, objectId('1.3.6.1.5.5.7.3.1')))),
      der(0x30, objectId('2.5.29.17'), der(0x04, san)),
    ),
  );
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, serial),
    ecdsaWithSha256,
    name,
    der(
      0x30,
      utcTime(new Date(now.getTime() - 3600_000)),
      utcTime(new Date(now.getTime() + 365 * 86400_000)),
    ),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = der(0x30, tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), signature));
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
