// The Kubernetes CEL semver library, after github.com/blang/semver/v4 (`Parse`, `ParseTolerant`).
import { CelEvalError, CelObject, type CelValue, noOverload } from './values.ts';

type PreRelease = string | bigint;

/** A semantic version (`kubernetes.Semver`). */
class CelSemver extends CelObject {
  /** The CEL type name. */
  readonly celType = 'kubernetes.Semver';
  /** Major, minor, patch. */
  readonly core: readonly [bigint, bigint, bigint];
  /** Pre-release identifiers (numbers as bigint). */
  readonly pre: readonly PreRelease[];
  /** Creates a version. */
  constructor(core: readonly [bigint, bigint, bigint], pre: readonly PreRelease[]) {
    super();
    this.core = core;
    this.pre = pre;
  }
  /** Equal precedence (build metadata ignored). */
  equals(other: CelValue): boolean {
    return other instanceof CelSemver && compareSemver(this, other) === 0;
  }
}

const cmp = (a: bigint | string, b: bigint | string) => (a < b ? -1 : a > b ? 1 : 0);

/** Semver precedence: -1, 0 or 1. */
function compareSemver(a: CelSemver, b: CelSemver): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return cmp(a.core[i]!, b.core[i]!);
  if (a.pre.length === 0 || b.pre.length === 0)
    return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (typeof x !== typeof y) return typeof x === 'bigint' ? -1 : 1;
    const c = cmp(x, y);
    if (c !== 0) return c;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

const onlyDigits = (s: string) => /^[0-9]*$/.test(s);
const leadingZero = (s: string) => s.length > 1 && s[0] === '0';

function number(s: string, what: string, label: string): bigint {
  if (!onlyDigits(s)) throw new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(s)}`);
  if (leadingZero(s)) throw new Error(`${label} number must not contain leading zeroes ${JSON.stringify(s)}`);
  if (s === '') throw new Error(`strconv.ParseUint: parsing "": invalid syntax`);
  const v = BigInt(s);
  if (v >= 1n << 64n) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

/** blang/semver `Parse`: strict `MAJOR.MINOR.PATCH[-pre][+build]`. */
function parseSemver(s: string): CelSemver {
  if (s === '') throw new Error('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const major = number(parts[0]!, 'major', 'Major');
  const minor = number(parts[1]!, 'minor', 'Minor');
  let patchStr = parts.slice(2).join('.');
  const plus = patchStr.indexOf('+');
  let build: string[] = [];
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  let pre: string[] = [];
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    pre = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = number(patchStr, 'patch', 'Patch');
  const preRelease = pre.map((p): PreRelease => {
    if (p === '') throw new Error('Prerelease is empty');
    if (onlyDigits(p)) {
      if (leadingZero(p))
        throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      return BigInt(p);
    }
    if (/^[0-9A-Za-z-]+$/.test(p)) return p;
    throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
  });
  for (const b of build) {
    if (b === '') throw new Error('Build meta data is empty');
    if (!/^[0-9A-Za-z-]+$/.test(b))
      throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return new CelSemver([major, minor, patch], preRelease);
}

/** blang/semver `ParseTolerant`: a leading `v`, missing minor or patch, leading zeros. */
function parseSemverTolerant(input: string): CelSemver {
  const s = input.trim().replace(/^v/, '');
  const parts = s.split('.');
  const head = parts.length > 3 ? [...parts.slice(0, 2), parts.slice(2).join('.')] : parts;
  const cleaned = head.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (cleaned.length < 3) {
    if (/[+-]/.test(cleaned[cleaned.length - 1]!))
      throw new Error('Short version cannot contain PreRelease/Build meta data');
    while (cleaned.length < 3) cleaned.push('0');
  }
  return parseSemver(cleaned.join('.'));
}

/** The semver library; undefined when `fn` with these arguments is not one of them. */
export function semverFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target === undefined) {
    if (fn !== 'semver' && fn !== 'isSemver') return undefined;
    const [s, normalize] = args;
    if (typeof s !== 'string' || (args.length === 2 && typeof normalize !== 'boolean') || args.length > 2)
      return undefined;
    const parse = normalize === true ? parseSemverTolerant : parseSemver;
    try {
      const v = parse(s);
      return fn === 'semver' ? v : true;
    } catch (e) {
      if (fn === 'isSemver') return false;
      throw new CelEvalError((e as Error).message);
    }
  }
  if (!(target instanceof CelSemver)) return undefined;
  const other = () => {
    const o = args[0];
    if (!(o instanceof CelSemver)) throw noOverload(fn, target, o);
    return compareSemver(target, o);
  };
  switch (fn) {
    case 'major':
      return target.core[0];
    case 'minor':
      return target.core[1];
    case 'patch':
      return target.core[2];
    case 'isGreaterThan':
      return other() > 0;
    case 'isLessThan':
      return other() < 0;
    case 'compareTo':
      return BigInt(other());
    default:
      return undefined;
  }
}
