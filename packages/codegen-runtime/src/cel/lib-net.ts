// The Kubernetes CEL IP and CIDR libraries, after Go's `net/netip` (`ParseAddr`, `ParsePrefix`).
import { CelEvalError, CelObject, type CelValue, noOverload } from './values.ts';

const q = (s: string) => JSON.stringify(s);

class AddrError extends Error {}

function addrError(input: string, msg: string, at?: string): AddrError {
  return new AddrError(`ParseAddr(${q(input)}): ${msg}${at ? ` (at ${q(at)})` : ''}`);
}

function parseIPv4(input: string, s: string): number[] {
  const out: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (out.length === 3) throw addrError(input, 'IPv4 address too long');
      out.push(val);
      val = 0;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (out.length < 3) throw addrError(input, 'IPv4 address too short');
  out.push(val);
  return out;
}

function parseIPv6(input: string): { bytes: number[]; zone: string } {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const bytes: number[] = [];
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: new Array(16).fill(0), zone };
  }
  while (bytes.length < 16) {
    const m = /^[0-9A-Fa-f]{0,5}/.exec(s)![0];
    if (m.length === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (m.length > 4) throw addrError(input, 'each group must have 4 or less digits', s);
    if (s[m.length] === '.') {
      if (ellipsis < 0 && bytes.length !== 12)
        throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (bytes.length + 4 > 16)
        throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = parseIPv4(s, s);
      bytes.push(...v4);
      s = '';
      break;
    }
    const v = Number.parseInt(m, 16);
    bytes.push(v >> 8, v & 0xff);
    s = s.slice(m.length);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = bytes.length;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (bytes.length < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const fill = new Array(16 - bytes.length).fill(0);
    bytes.splice(ellipsis, 0, ...fill);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros');
  return { bytes, zone };
}

/** Go's `netip.ParseAddr`: the address bytes (4 or 16) and the zone. */
function parseAddr(s: string): { bytes: number[]; zone: string } {
  for (const c of s) {
    if (c === '.') return { bytes: parseIPv4(s, s), zone: '' };
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

function is4In6(b: readonly number[]): boolean {
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/** An IP address (`net.IP` in the apiserver's CEL). */
class CelIP extends CelObject {
  /** The CEL type name. */
  readonly celType = 'net.IP';
  /** 4 or 16 bytes. */
  readonly bytes: readonly number[];
  /** Creates an address. */
  constructor(bytes: readonly number[]) {
    super();
    this.bytes = bytes;
  }
  /** Same family and bytes. */
  equals(other: CelValue): boolean {
    return other instanceof CelIP && other.bytes.join() === this.bytes.join();
  }
  /** `netip.Addr.String()`: dotted IPv4, RFC 5952 IPv6. */
  override toString(): string {
    const b = this.bytes;
    if (b.length === 4) return b.join('.');
    if (is4In6(b)) return `::ffff:${b.slice(12).join('.')}`;
    const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; ) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) {
        best = i;
        bestLen = j - i;
      }
      i = j === i ? i + 1 : j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(':');
    return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
  }
}

/** An IP prefix (`net.CIDR` in the apiserver's CEL). */
class CelCIDR extends CelObject {
  /** The CEL type name. */
  readonly celType = 'net.CIDR';
  /** The address as written (not masked). */
  readonly ip: CelIP;
  /** The prefix length. */
  readonly bits: number;
  /** Creates a prefix. */
  constructor(ip: CelIP, bits: number) {
    super();
    this.ip = ip;
    this.bits = bits;
  }
  /** Same address and length. */
  equals(other: CelValue): boolean {
    return other instanceof CelCIDR && other.bits === this.bits && other.ip.equals(this.ip);
  }
  /** The prefix with the bits past its length cleared. */
  masked(): CelCIDR {
    const bytes = this.ip.bytes.map((x, i) => {
      const keep = Math.max(0, Math.min(8, this.bits - 8 * i));
      return x & ((0xff << (8 - keep)) & 0xff);
    });
    return new CelCIDR(new CelIP(bytes), this.bits);
  }
  /** Whether `ip` is inside the prefix (false for the other family). */
  contains(ip: CelIP): boolean {
    if (ip.bytes.length !== this.ip.bytes.length) return false;
    return new CelCIDR(ip, this.bits).masked().equals(this.masked());
  }
  /** `netip.Prefix.String()`. */
  override toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }
}

/** Parses an IP as the Kubernetes library does: no zone, no IPv4-mapped IPv6. */
function parseIP(raw: string): CelIP {
  if (raw.includes('%')) throw new Error(`IP address ${q(raw)} with zone value is not allowed`);
  let bytes: number[];
  try {
    bytes = parseAddr(raw).bytes;
  } catch (e) {
    throw new Error(
      `IP Address ${q(raw)} parse error during conversion from string: ${(e as Error).message}`,
    );
  }
  if (is4In6(bytes)) throw new Error(`IPv4-mapped IPv6 address ${q(raw)} is not allowed`);
  return new CelIP(bytes);
}

/** Parses a CIDR as the Kubernetes library does (`netip.ParsePrefix`, no IPv4-mapped IPv6). */
function parseCIDR(raw: string): CelCIDR {
  const fail = (msg: string): never => {
    throw new Error(
      `network address parse error during conversion from string: netip.ParsePrefix(${q(raw)}): ${msg}`,
    );
  };
  const i = raw.lastIndexOf('/');
  if (i < 0) fail("no '/'");
  let addr: { bytes: number[]; zone: string } = { bytes: [], zone: '' };
  try {
    addr = parseAddr(raw.slice(0, i));
  } catch (e) {
    fail((e as Error).message);
  }
  if (addr.zone !== '') fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = raw.slice(i + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsStr)) fail(`bad bits after slash: ${q(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits > addr.bytes.length * 8) fail('prefix length out of range');
  if (is4In6(addr.bytes)) throw new Error(`IPv4-mapped IPv6 address ${q(raw)} is not allowed`);
  return new CelCIDR(new CelIP(addr.bytes), bits);
}

function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new CelEvalError((e as Error).message);
  }
}

function succeeds(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

function ipMethod(ip: CelIP, fn: string): CelValue | undefined {
  const b = ip.bytes;
  const v4 = b.length === 4;
  switch (fn) {
    case 'family':
      return v4 ? 4n : 6n;
    case 'isUnspecified':
      return b.every((x) => x === 0);
    case 'isLoopback':
      return v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
    case 'isLinkLocalMulticast':
      return v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
    case 'isLinkLocalUnicast':
      return v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
    case 'isGlobalUnicast':
      if (v4) {
        if (b.every((x) => x === 0) || b.every((x) => x === 255)) return false;
        return !(b[0] === 127 || (b[0]! & 0xf0) === 224 || (b[0] === 169 && b[1] === 254));
      }
      if (b.every((x) => x === 0)) return false;
      if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return false;
      return !(b[0] === 0xff || (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80));
    default:
      return undefined;
  }
}

/** The IP and CIDR libraries; undefined when `fn` with these arguments is not one of them. */
export function netFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  const arg = args[0];
  if (target === undefined) {
    switch (fn) {
      case 'ip':
        if (typeof arg !== 'string' || args.length !== 1) return undefined;
        return wrap(() => parseIP(arg));
      case 'isIP':
        if (typeof arg !== 'string' || args.length !== 1) return undefined;
        return succeeds(() => parseIP(arg));
      case 'ip.isCanonical':
        if (typeof arg !== 'string') throw noOverload('ip.isCanonical', arg);
        return wrap(() => parseIP(arg).toString() === arg);
      case 'cidr':
        if (typeof arg !== 'string' || args.length !== 1) return undefined;
        try {
          return parseCIDR(arg);
        } catch (e) {
          // the library prefixes the parser's (already prefixed) error once more
          throw new CelEvalError(
            `network address parse error during conversion from string: ${(e as Error).message}`,
          );
        }
      case 'isCIDR':
        if (typeof arg !== 'string' || args.length !== 1) return undefined;
        return succeeds(() => parseCIDR(arg));
      case 'string':
        if (arg instanceof CelIP || arg instanceof CelCIDR) return arg.toString();
        return undefined;
      default:
        return undefined;
    }
  }
  if (target instanceof CelIP) return ipMethod(target, fn);
  if (!(target instanceof CelCIDR)) return undefined;
  switch (fn) {
    case 'containsIP': {
      const ip = typeof arg === 'string' ? wrap(() => parseIP(arg)) : arg;
      if (!(ip instanceof CelIP)) throw noOverload(fn, target, arg);
      return target.contains(ip);
    }
    case 'containsCIDR': {
      const other = typeof arg === 'string' ? wrap(() => parseCIDR(arg)) : arg;
      if (!(other instanceof CelCIDR)) throw noOverload(fn, target, arg);
      return other.bits >= target.bits && target.contains(other.ip);
    }
    case 'ip':
      return target.ip;
    case 'masked':
      return target.masked();
    case 'prefixLength':
      return BigInt(target.bits);
    default:
      return undefined;
  }
}
