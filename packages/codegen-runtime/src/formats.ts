import { isIP } from 'node:net';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Go's `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, a real date. */
function isFullDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** go-openapi `IsDateTime`: split at the first `t` (case-insensitive), date and `hh:mm:ss[.f](z|±hh:mm)`. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isFullDate(parts[0]!)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** Go's `time.ParseDuration`. */
function isGoDuration(s: string): boolean {
  return s === '0' || /^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s);
}

const DURATION_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** go-openapi `ParseDuration`: Go durations, or any `<digits> <unit>` somewhere in the string. */
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    if (m[1]!.length > 18) return false;
    const unit = m[2]!.trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** k8s.io/utils `ParseIPSloppy` for IPv4 text: four decimal parts up to 255, leading zeros allowed. */
function isSloppyIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^[0-9]+$/.test(p) && Number(p) <= 255);
}

/** Strips leading zeros from an IPv4 tail of an IPv6 address (what the sloppy parser tolerates). */
function unsloppy(s: string): string {
  const m = /^(.*:)([0-9.]+)$/.exec(s);
  if (!m || !isSloppyIPv4(m[2]!)) return s;
  return (
    m[1]! +
    m[2]!
      .split('.')
      .map((p) => String(Number(p)))
      .join('.')
  );
}

/** Go's `net.ParseIP` (strict: no zones, no leading zeros). */
function goParseIP(s: string): boolean {
  if (s.includes('%')) return false;
  if (!s.includes(':')) return isIP(s) === 4 && !/(^|\.)0[0-9]/.test(s);
  return isIP(s) === 6 && !/(^|[.:])0[0-9]+\./.test(s) && !/\.0[0-9]/.test(s);
}

function sloppyIP(s: string): boolean {
  if (s.includes('%')) return false;
  if (!s.includes(':')) return isSloppyIPv4(s);
  return isIP(unsloppy(s)) === 6;
}

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^[0-9]+$/.test(bits) || !sloppyIP(addr)) return false;
  const max = addr.includes(':') ? 128 : 32;
  return bits.length <= 3 && Number(bits) <= max;
}

/** Go's `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:…`, `xx-xx-…` or `xxxx.xxxx.…`. */
function isMac(s: string): boolean {
  if (s.length < 14) return false;
  const n = (k: number) => k === 6 || k === 8 || k === 20;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0 || !n((s.length + 1) / 3)) return false;
    const sep = s[2]!;
    for (let i = 0; i < s.length; i += 3) {
      if (!/^[0-9A-Fa-f]{2}$/.test(s.slice(i, i + 2))) return false;
      if (i + 2 < s.length && s[i + 2] !== sep) return false;
    }
    return true;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0 || !n((2 * (s.length + 1)) / 5)) return false;
    for (let i = 0; i < s.length; i += 5) {
      if (!/^[0-9A-Fa-f]{4}$/.test(s.slice(i, i + 4))) return false;
      if (i + 4 < s.length && s[i + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

const HOST_OK = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

function validEscapes(s: string, host: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      if (!/^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) return false;
      if (host && Number.parseInt(s.slice(i + 1, i + 3), 16) < 0x80 && s.slice(i, i + 3) !== '%25')
        return false;
      i += 2;
    } else if (host && c.charCodeAt(0) < 0x80 && !HOST_OK.test(c)) return false;
  }
  return true;
}

function validPort(p: string): boolean {
  return p === '' || /^:[0-9]*$/.test(p);
}

function validHost(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0 || !validPort(host.slice(close + 1))) return false;
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    if (isIP(zone >= 0 ? literal.slice(0, zone) : literal) !== 6) return false;
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validPort(host.slice(colon))) return false;
  }
  return validEscapes(host, true);
}

/** Go's `url.ParseRequestURI`: an absolute URI, or an absolute path. */
function isRequestUri(s: string): boolean {
  if (s === '' || [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (s === '*') return true;
  let scheme = '';
  let rest = s;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return false;
      scheme = s.slice(0, i);
      rest = s.slice(i + 1);
    }
    break;
  }
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) return scheme !== '';
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    if (slash >= 0) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (!validHost(authority.slice(at + 1))) return false;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || !validEscapes(userinfo, false)) return false;
    }
  }
  return validEscapes(rest, false);
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) d = d * 2 >= 10 ? ((d * 2) % 10) + 1 : d * 2;
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function isbn10(s: string): boolean {
  const t = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(t[i]);
  sum += 10 * (t[9] === 'X' ? 10 : Number(t[9]));
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const t = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(t[i]);
  return Number(t[12]) === (10 - (sum % 10)) % 10;
}

const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uffff]+";
const ADDR_SPEC = new RegExp(
  `^(${ATEXT}(\\.${ATEXT})*|"([^"\\\\]|\\\\.)*")@(${ATEXT}(\\.${ATEXT})*|\\[[^\\][\\\\]*\\])$`,
  'u',
);

/** Go's `mail.ParseAddress` for the common forms: `local@domain` and `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const t = s.trim();
  const angle = /^(?:[^<>]*?)\s*<([^<>]*)>$/.exec(t);
  return ADDR_SPEC.test(angle ? angle[1]! : t);
}

/**
 * The string formats kube-apiserver checks (apiextensions `formats.go`, kube-openapi `strfmt`),
 * reimplemented after their Go definitions. Formats not listed here are ignored, as the apiserver
 * ignores unknown formats. Names are compared with dashes removed (`date-time` = `datetime`),
 * case-sensitively.
 */
export const KUBERNETES_FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  datetime: isDateTime,
  date: isFullDate,
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  ipv4: (s) => sloppyIP(s) && s.includes('.'),
  ipv6: (s) => goParseIP(s) && s.includes(':'),
  cidr: isCidr,
  mac: isMac,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  hostname: (s) =>
    s.length <= 255 &&
    s.split('.').every((p) => p.length <= 63) &&
    /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u.test(
      s,
    ),
  email: isEmail,
  uri: isRequestUri,
  duration: isDuration,
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      s,
    ),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: (s) => {
    const d = s.replace(/[^0-9]+/g, '');
    return (
      /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(
        d,
      ) && luhn(d)
    );
  },
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  password: () => true,
  k8sshortname: (s) => s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s),
  k8slongname: (s) =>
    s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s),
};

/** The checker for a format name, or undefined when the apiserver does not check it. */
export function formatChecker(format: string): ((s: string) => boolean) | undefined {
  const name = format.replaceAll('-', '');
  return Object.hasOwn(KUBERNETES_FORMATS, name) ? KUBERNETES_FORMATS[name] : undefined;
}
