// The Kubernetes CEL format library (`format.dns1123Label().validate(s)`, `format.named(name)`), after
// apimachinery's validation functions and the strfmt checks the apiserver uses.
import { KUBERNETES_FORMATS } from '../formats.ts';
import { parseRequestURI } from './lib-url.ts';
import { CelOptional, OPTIONAL_NONE } from './optional.ts';
import { CelObject, type CelValue, noOverload } from './values.ts';

/** A named format (`kubernetes.NamedFormat`). */
class CelFormat extends CelObject {
  /** The CEL type name. */
  readonly celType = 'kubernetes.NamedFormat';
  /** The format's name (`dns1123Label`, …). */
  readonly name: string;
  /** The errors of a value, empty when it is valid. */
  readonly validate: (s: string) => string[];
  /** Creates a format. */
  constructor(name: string, validate: (s: string) => string[]) {
    super();
    this.name = name;
    this.validate = validate;
  }
  /** Same name. */
  equals(other: CelValue): boolean {
    return other instanceof CelFormat && other.name === this.name;
  }
}

/** apimachinery's `RegexError`. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number) => `must be no more than ${n} characters`;
/** The wording of the label-value and qualified-name checks. */
const maxBytes = (n: number) => `must be no more than ${n} bytes`;
const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const full = (fmt: string) => new RegExp(`^${fmt}$`);
const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function dns1123Label(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLen(63));
  if (!full(LABEL_FMT).test(s)) {
    if (full(SUBDOMAIN_FMT).test(s)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

function dns1123Subdomain(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 253) errs.push(maxLen(253));
  if (!full(SUBDOMAIN_FMT).test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

function dns1035Label(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLen(63));
  if (!full(DNS1035_FMT).test(s))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_FMT,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

function labelValue(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxBytes(63));
  if (!full(LABEL_VALUE_FMT).test(s))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

function qualifiedName(s: string): string[] {
  const errs: string[] = [];
  const parts = s.split('/');
  let name = parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return [
      `a valid label key ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxBytes(63)}`);
  if (!full(QNAME_FMT).test(name))
    errs.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** apimachinery's `NameIsDNS*(name, prefix=true)`: a trailing dash is allowed (generateName). */
const prefixed = (f: (s: string) => string[]) => (s: string) =>
  f(s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

const FORMATS: Readonly<Record<string, (s: string) => string[]>> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefixed(dns1123Label),
  dns1123SubdomainPrefix: prefixed(dns1123Subdomain),
  dns1035LabelPrefix: prefixed(dns1035Label),
  labelValue,
  uri: (s) => {
    try {
      parseRequestURI(s);
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  },
  uuid: check(KUBERNETES_FORMATS.uuid!, 'does not match the UUID format'),
  byte: check(KUBERNETES_FORMATS.byte!, 'illegal base64 data'),
  date: check(KUBERNETES_FORMATS.date!, 'invalid date'),
  datetime: check(KUBERNETES_FORMATS.datetime!, 'invalid date-time'),
};

const formats = new Map(Object.entries(FORMATS).map(([name, f]) => [name, new CelFormat(name, f)]));

/** The format library; undefined when `fn` with these arguments is not one of them. */
export function formatFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target instanceof CelFormat) {
    if (fn !== 'validate') return undefined;
    const s = args[0];
    if (typeof s !== 'string') throw noOverload(fn, target, s);
    const errs = target.validate(s);
    return errs.length === 0 ? OPTIONAL_NONE : new CelOptional(errs);
  }
  if (target !== undefined || !fn.startsWith('format.')) return undefined;
  const name = fn.slice('format.'.length);
  if (name === 'named') {
    const n = args[0];
    if (typeof n !== 'string') throw noOverload(fn, n);
    const f = formats.get(n);
    return f ? new CelOptional(f) : OPTIONAL_NONE;
  }
  return args.length === 0 ? formats.get(name) : undefined;
}
