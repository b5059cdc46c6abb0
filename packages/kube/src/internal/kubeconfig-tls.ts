import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { KubeConfigError } from '../errors.ts';
import type { SelectedContext } from './kubeconfig-context.ts';

/** Certificate or key bytes and the kubeconfig field they came from. */
interface Material {
  readonly owner: 'cluster' | 'user';
  /** The YAML field, e.g. `client-key-data` or `client-key`. */
  readonly field: string;
  /** How to name it in a message: the field, plus the path for a file. */
  readonly label: string;
  readonly bytes: Buffer;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z]+ )*PRIVATE KEY-----/;

/**
 * Checks the certificate material of the selected context once, the way the TLS stack will use it
 * (client-node reads a file field before its `-data` twin), so bad data fails at
 * `createKubeClient` time with the file, context, cluster or user and field named, rather than as
 * a bare OpenSSL error on the first request.
 * @throws {@link KubeConfigError}
 */
export function checkTlsMaterial(selected: SelectedContext): void {
  const fail = (m: Pick<Material, 'owner' | 'field'>, problem: string, cause?: unknown): never => {
    const { text, location } = selected.at(m.owner);
    throw new KubeConfigError(`${text}: ${problem}`, { ...location, field: m.field, cause });
  };
  const { cluster, user } = selected;
  const ca = material(fail, {
    owner: 'cluster',
    base: 'certificate-authority',
    file: cluster.caFile,
    data: cluster.caData,
  });
  if (ca) checkCertificates(fail, ca, "the cluster's CA certificate");
  if (!user) return;
  const cert = material(fail, {
    owner: 'user',
    base: 'client-certificate',
    file: user.certFile,
    data: user.certData,
  });
  const key = material(fail, { owner: 'user', base: 'client-key', file: user.keyFile, data: user.keyData });
  if (cert && !key) {
    fail(
      { owner: 'user', field: 'client-key-data' },
      `has ${cert.field} but no client-key-data or client-key: add the certificate's private key, or remove the certificate`,
    );
  }
  if (key && !cert) {
    fail(
      { owner: 'user', field: 'client-certificate-data' },
      `has ${key.field} but no client-certificate-data or client-certificate: add the key's certificate, or remove the key`,
    );
  }
  if (cert && key) {
    checkCertificates(fail, cert, "the user's client certificate");
    checkKey(fail, key);
    try {
      createSecureContext({ cert: cert.bytes, key: key.bytes });
    } catch (err) {
      fail(
        key,
        `${cert.label} and ${key.label} do not match (OpenSSL: ${reason(err)}): the key must be the certificate's private key; use a matching pair (e.g. a fresh kubeconfig from the cluster's administrator)`,
        err,
      );
    }
  }
  try {
    createSecureContext({ ca: ca?.bytes, cert: cert?.bytes, key: key?.bytes });
  } catch (err) {
    fail(
      key ?? cert ?? { owner: 'cluster', field: 'certificate-authority-data' },
      `the TLS settings are rejected (OpenSSL: ${reason(err)}): check the certificate fields`,
      err,
    );
  }
}

type Fail = (m: Pick<Material, 'owner' | 'field'>, problem: string, cause?: unknown) => never;

/** Where one piece of TLS material may come from: the `<base>` file or the `<base>-data` field. */
interface MaterialSource {
  readonly owner: Material['owner'];
  readonly base: string;
  readonly file: string | undefined;
  readonly data: string | undefined;
}

/** Reads `<base>` (a file) or `<base>-data` (base64 PEM), as client-node does: the file first. */
function material(fail: Fail, { owner, base, file, data }: MaterialSource): Material | undefined {
  if (file) {
    const m = { owner, field: base, label: `${base} file ${file}` };
    try {
      return { ...m, bytes: readFileSync(file) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        fail(
          m,
          `${m.label} does not exist: fix the path (a relative path is resolved against the kubeconfig file's directory), or use ${base}-data`,
          err,
        );
      }
      fail(m, `${m.label} cannot be read (${(err as Error).message}): check its permissions`, err);
    }
  }
  if (!data) return undefined;
  const m = { owner, field: `${base}-data`, label: `${base}-data` };
  if (data.includes('-----BEGIN')) {
    fail(
      m,
      `${m.label} holds PEM text, not base64: base64-encode it (e.g. \`base64 -w0 < file.pem\`), or put the PEM file's path in ${base} instead`,
    );
  }
  const compact = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    fail(
      m,
      `${m.label} is not valid base64: it must be a PEM file encoded with standard base64 (e.g. \`base64 -w0 < file.pem\`)`,
    );
  }
  return { ...m, bytes: Buffer.from(compact, 'base64') };
}

/** Why bytes that should be PEM are not, when it can be guessed. */
function notPemHint(text: string, wanted: 'certificate' | 'private key'): string {
  if (
    /^[A-Za-z0-9+/=\s]+$/.test(text) &&
    Buffer.from(text, 'base64').toString('latin1').includes('-----BEGIN')
  ) {
    return 'it is base64-encoded twice: encode the PEM once';
  }
  if (wanted === 'certificate' && PEM_PRIVATE_KEY.test(text)) {
    return 'it holds a private key: are the certificate and key fields swapped?';
  }
  if (wanted === 'private key' && text.includes('-----BEGIN CERTIFICATE-----')) {
    return 'it holds a certificate: are the certificate and key fields swapped?';
  }
  if (text.charCodeAt(0) === 0x30) {
    return 'it looks like DER: convert it to PEM (e.g. `openssl x509 -inform der` or `openssl pkey -inform der`)';
  }
  return `put the PEM-encoded ${wanted} there`;
}

function checkCertificates(fail: Fail, m: Material, what: string): void {
  const text = m.bytes.toString('latin1');
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    fail(
      m,
      `${m.label} does not contain a PEM certificate (no "-----BEGIN CERTIFICATE-----" block): ${notPemHint(text, 'certificate')}`,
    );
  }
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      fail(
        m,
        `${m.label} is not a valid certificate (OpenSSL: ${reason(err)}): replace it with ${what}`,
        err,
      );
    }
  }
}

function checkKey(fail: Fail, m: Material): void {
  const text = m.bytes.toString('latin1');
  if (!PEM_PRIVATE_KEY.test(text)) {
    fail(m, `${m.label} does not contain a PEM private key: ${notPemHint(text, 'private key')}`);
  }
  if (text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || text.includes('Proc-Type: 4,ENCRYPTED')) {
    fail(
      m,
      `${m.label} is encrypted, and a kubeconfig key cannot have a passphrase: decrypt it (e.g. \`openssl pkey -in key.pem -out plain.pem\`)`,
    );
  }
  try {
    createSecureContext({ key: m.bytes });
  } catch (err) {
    fail(
      m,
      `${m.label} is not a valid private key (OpenSSL: ${reason(err)}): replace it with the user's private key`,
      err,
    );
  }
}

/** OpenSSL's short reason (`key values mismatch`), else the message. */
function reason(err: unknown): string {
  const e = err as { reason?: unknown; message?: unknown };
  return typeof e?.reason === 'string' && e.reason ? e.reason : String(e?.message ?? err);
}
