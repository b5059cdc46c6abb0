import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  integer,
  octetString,
  oid,
  sequence,
  set,
  time,
  utf8String,
} from './internal/asn1.ts';

/** A certificate and its private key, both PEM-encoded. */
export interface CertificatePair {
  /** The certificate, PEM (`-----BEGIN CERTIFICATE-----`). */
  readonly certPem: string;
  /** The private key, PKCS#8 PEM. */
  readonly keyPem: string;
}

/** What to put in a certificate that a {@link CertificateAuthority} issues. */
export interface CertificateRequest {
  /** Subject common name: the user name for client certificates. */
  readonly commonName: string;
  /** Subject organizations: the groups for client certificates. */
  readonly organizations?: readonly string[];
  /** DNS names and IP addresses for serving certificates. */
  readonly hosts?: readonly string[];
  /** `server` for serving certificates, `client` for client certificates. */
  readonly usage: 'server' | 'client';
}

const OID = {
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const VALIDITY_MS = 7 * 24 * 3600 * 1000; // 168 h, as envtest
const CLOCK_SKEW_MS = 5 * 60 * 1000;

function name(commonName: string, organizations: readonly string[] = []): Buffer {
  const rdns = organizations.map((o) => set(sequence(oid(OID.organization), utf8String(o))));
  rdns.push(set(sequence(oid(OID.commonName), utf8String(commonName))));
  return sequence(...rdns);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map((p) => Number.parseInt(p, 10)));
  // IPv6: expand :: and write 16 bytes.
  const [head = '', tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...new Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

function keyId(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function toPem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function newKey(): { privateKey: KeyObject; spki: Buffer; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { privateKey, spki, pem };
}

/**
 * A tiny certificate authority for tests, like envtest's `tinyca`: ECDSA P-256 keys, 168 h
 * validity, serving and client certificates. It needs no dependency and no `openssl` binary:
 * certificates are DER-encoded by hand and signed with `node:crypto`. Create one with
 * {@link createCertificateAuthority}.
 */
export interface CertificateAuthority {
  /** The CA certificate, PEM: what clients and the apiserver trust. */
  readonly certPem: string;
  /** The CA private key, PKCS#8 PEM. */
  readonly keyPem: string;
  /** Issues a certificate signed by this CA for a fresh key. */
  issue(request: CertificateRequest): CertificatePair;
}

/**
 * Creates a new self-signed {@link CertificateAuthority} named `commonName`.
 *
 * @example
 * {@includeCode ./certs.test.ts#createCertificateAuthority}
 */
export function createCertificateAuthority(commonName = 'kubeloom-test-ca'): CertificateAuthority {
  return new TinyCA(commonName);
}

class TinyCA implements CertificateAuthority {
  readonly certPem: string;
  readonly keyPem: string;
  readonly #key: KeyObject;
  readonly #subject: Buffer;
  readonly #keyId: Buffer;

  constructor(commonName: string) {
    const key = newKey();
    this.#key = key.privateKey;
    this.keyPem = key.pem;
    this.#subject = name(commonName, ['kubeloom']);
    this.#keyId = keyId(key.spki);
    const extensions = [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      // keyCertSign (bit 5) | digitalSignature (bit 0) → 0b1000_0100, 2 unused bits
      extension(OID.keyUsage, true, bitString(Buffer.from([0x84]), 2)),
      extension(OID.subjectKeyIdentifier, false, octetString(this.#keyId)),
    ];
    this.certPem = toPem('CERTIFICATE', this.#signTbs(this.#subject, key.spki, extensions));
  }

  /** Issues a certificate signed by this CA for a fresh key. */
  issue(request: CertificateRequest): CertificatePair {
    const key = newKey();
    const extensions: Buffer[] = [
      extension(OID.basicConstraints, true, sequence()),
      // digitalSignature (bit 0) | keyEncipherment (bit 2) → 0b1010_0000, 5 unused bits
      extension(OID.keyUsage, true, bitString(Buffer.from([0xa0]), 5)),
      extension(
        OID.extKeyUsage,
        false,
        sequence(oid(request.usage === 'server' ? OID.serverAuth : OID.clientAuth)),
      ),
      extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, this.#keyId))),
    ];
    if (request.hosts && request.hosts.length > 0) {
      const names = request.hosts.map((h) =>
        isIP(h) ? implicitPrimitive(7, ipBytes(h)) : implicitPrimitive(2, Buffer.from(h, 'ascii')),
      );
      extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
    }
    const der = this.#signTbs(name(request.commonName, request.organizations), key.spki, extensions);
    return { certPem: toPem('CERTIFICATE', der), keyPem: key.pem };
  }

  #signTbs(subject: Buffer, spki: Buffer, extensions: Buffer[]): Buffer {
    const now = Date.now();
    const algorithm = sequence(oid(OID.ecdsaWithSHA256));
    const serial = randomBytes(16);
    serial[0] = serial[0]! & 0x7f;
    const tbs = sequence(
      explicit(0, integer(2)),
      integer(serial),
      algorithm,
      this.#subject,
      sequence(time(new Date(now - CLOCK_SKEW_MS)), time(new Date(now + VALIDITY_MS))),
      subject,
      spki,
      explicit(3, sequence(...extensions)),
    );
    const signature = sign('sha256', tbs, { key: this.#key, dsaEncoding: 'der' });
    return sequence(tbs, algorithm, bitString(signature));
  }
}

/** Generates an RSA key pair for service-account token signing: PKCS#8 private and SPKI public PEM. */
export function serviceAccountKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
