/**
 * A minimal DER encoder: just enough ASN.1 to write X.509 certificates without a dependency.
 * Internal to `@kubeloom/testing`; not exported.
 */

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  let n = length;
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n = Math.floor(n / 256);
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** Encodes one TLV with the given tag byte. */
function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

export function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A non-negative INTEGER from big-endian bytes (a leading zero is added when the top bit is set). */
export function integer(value: Buffer | number): Buffer {
  let bytes = typeof value === 'number' ? Buffer.from([value]) : value;
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && (bytes[start + 1]! & 0x80) === 0) start++;
  bytes = bytes.subarray(start);
  if ((bytes[0]! & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => Number.parseInt(p, 10));
  const first = parts[0]! * 40 + parts[1]!;
  const out: number[] = [first];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    let n = Math.floor(part / 128);
    while (n > 0) {
      chunk.unshift((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

export function utf8String(value: string): Buffer {
  return tlv(0x0c, Buffer.from(value, 'utf8'));
}

export function octetString(value: Buffer): Buffer {
  return tlv(0x04, value);
}

/** A BIT STRING holding whole bytes (no unused bits). */
export function bitString(value: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), value]));
}

/** GeneralizedTime, valid for any year (UTCTime would stop at 2049). */
function generalizedTime(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-29T21:33:10.123Z
  const text = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x18, Buffer.from(text, 'ascii'));
}

/** UTCTime for dates before 2050, as RFC 5280 requires; GeneralizedTime otherwise. */
export function time(date: Date): Buffer {
  if (date.getUTCFullYear() >= 2050) return generalizedTime(date);
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

/** A context-specific constructed tag, `[n] EXPLICIT`. */
export function explicit(n: number, content: Buffer): Buffer {
  return tlv(0xa0 | n, content);
}

/** A context-specific primitive tag, `[n] IMPLICIT` over raw bytes. */
export function implicitPrimitive(n: number, content: Buffer): Buffer {
  return tlv(0x80 | n, content);
}
