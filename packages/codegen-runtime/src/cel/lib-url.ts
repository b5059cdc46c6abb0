// The Kubernetes CEL URL library (`url`, `isURL`, `getScheme`, …), after Go's `net/url.ParseRequestURI`.
import { CelEvalError, CelObject, type CelValue, noOverload } from './values.ts';

/** A parsed URL (`net.URL` in the apiserver's CEL). */
export class CelURL extends CelObject {
  /** The CEL type name. */
  readonly celType = 'kubernetes.URL';
  /** The text it was parsed from. */
  readonly raw: string;
  /** Lower-cased scheme ('' when none). */
  readonly scheme: string;
  /** `host[:port]` of the authority ('' when none). */
  readonly host: string;
  /** The path as written (escaped). */
  readonly rawPath: string;
  /** The query without `?`. */
  readonly rawQuery: string;
  /** Creates a URL from its parts. */
  constructor(parts: { raw: string; scheme: string; host: string; rawPath: string; rawQuery: string }) {
    super();
    this.raw = parts.raw;
    this.scheme = parts.scheme;
    this.host = parts.host;
    this.rawPath = parts.rawPath;
    this.rawQuery = parts.rawQuery;
  }
  /** Equal when written the same way. */
  equals(other: CelValue): boolean {
    return other instanceof CelURL && other.raw === this.raw;
  }
}

const isAlpha = (c: string) => /^[A-Za-z]$/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/** Go's `shouldEscape` for the path (`encodePath`) and host (`encodeHost`) modes. */
function shouldEscape(c: string, mode: 'path' | 'host' | 'query'): boolean {
  if (/^[A-Za-z0-9]$/.test(c)) return false;
  if (mode === 'host' && '!$&\'()*+,;=:[]<>"'.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'query') return true;
    return false;
  }
  return true;
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** Go's `unescape`: checks `%XX` escapes (and, for a host, the characters allowed). */
function unescapeURL(s: string, mode: 'path' | 'host' | 'query'): string {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        let bad = s.slice(i);
        if (bad.length > 3) bad = bad.slice(0, 3);
        throw new Error(`invalid URL escape ${JSON.stringify(bad)}`);
      }
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && shouldEscape(c, 'host')) {
      throw new Error(`invalid character ${JSON.stringify(c)} in host name`);
    }
    if (mode === 'query' && c === '+') bytes.push(0x20);
    else bytes.push(...enc.encode(c));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return [...port.slice(1)].every(isDigit);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort))
        throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  unescapeURL(host, 'host');
  return host;
}

const USERINFO_OK = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** Go's `url.ParseRequestURI`, keeping what the CEL library reads. */
export function parseRequestURI(raw: string): CelURL {
  const fail = (why: string): never => {
    throw new Error(`parse ${JSON.stringify(raw)}: ${why}`);
  };
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    fail('net/url: invalid control character in URL');
  if (raw === '') fail('empty url');
  if (raw === '*') return new CelURL({ raw, scheme: '', host: '', rawPath: '*', rawQuery: '' });
  let scheme = '';
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === '+' || c === '-' || c === '.') {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) fail('missing protocol scheme');
      scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return new CelURL({ raw, scheme, host: '', rawPath: '', rawQuery });
    fail('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    try {
      host = parseHost(at < 0 ? authority : authority.slice(at + 1));
      if (at >= 0) {
        const userinfo = authority.slice(0, at);
        if (!USERINFO_OK.test(userinfo)) throw new Error('net/url: invalid userinfo');
        unescapeURL(userinfo, 'path');
      }
    } catch (e) {
      fail((e as Error).message);
    }
  }
  try {
    unescapeURL(rest, 'path');
  } catch (e) {
    fail((e as Error).message);
  }
  return new CelURL({ raw, scheme, host, rawPath: rest, rawQuery });
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(hostPort.slice(colon))) {
    host = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

function escapePath(s: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's `url.ParseQuery`, skipping what does not parse. */
function parseQuery(q: string): { [key: string]: CelValue } {
  const out: { [key: string]: string[] } = {};
  for (const part of q.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    try {
      const key = unescapeURL(eq < 0 ? part : part.slice(0, eq), 'query');
      const value = unescapeURL(eq < 0 ? '' : part.slice(eq + 1), 'query');
      const values = out[key] ?? [];
      values.push(value);
      out[key] = values;
    } catch {
      // Go skips the pair
    }
  }
  return out;
}

function toURL(v: CelValue | undefined, fn: string): CelURL {
  if (!(v instanceof CelURL)) throw noOverload(fn, v);
  return v;
}

/** The URL library: `url`, `isURL` and the `URL` methods; undefined when `fn` is not one of them. */
export function urlFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  switch (fn) {
    case 'url':
      if (target !== undefined || typeof args[0] !== 'string') return undefined;
      try {
        return parseRequestURI(args[0]);
      } catch (e) {
        throw new CelEvalError(`URL parse error during conversion from string: ${(e as Error).message}`);
      }
    case 'isURL':
      if (target !== undefined || typeof args[0] !== 'string') return undefined;
      try {
        parseRequestURI(args[0]);
        return true;
      } catch {
        return false;
      }
  }
  if (!(target instanceof CelURL)) return undefined;
  const u = toURL(target, fn);
  switch (fn) {
    case 'getScheme':
      return u.scheme;
    case 'getHost':
      return u.host;
    case 'getHostname':
      return splitHostPort(u.host)[0];
    case 'getPort':
      return splitHostPort(u.host)[1];
    case 'getEscapedPath':
      if (u.rawPath === '*') return '*';
      return validEncoded(u.rawPath) ? u.rawPath : escapePath(unescapeURL(u.rawPath, 'path'));
    case 'getQuery':
      return parseQuery(u.rawQuery);
    default:
      return undefined;
  }
}
