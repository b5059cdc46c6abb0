// Rules that use each CEL library kube-apiserver offers to CRD validation rules, with values that
// pass, fail and make the rule err: the arbiter is the apiserver (`cel-libraries.integration.test.ts`).
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';

/** One rule on one field, and the values sent in it. */
export interface CelLibraryCase {
  /** The library it exercises. */
  readonly library: string;
  /** The field's schema, without the rule. */
  readonly schema: JsonSchemaProps;
  /** The rule. */
  readonly rule: string;
  /** Its `message`, `messageExpression`, `optionalOldSelf`. */
  readonly message?: string;
  readonly messageExpression?: string;
  readonly optionalOldSelf?: boolean;
  /** Values sent on create. */
  readonly values: readonly unknown[];
  /** `[old, new]` pairs sent as updates. */
  readonly updates?: ReadonlyArray<readonly [unknown, unknown]>;
}

const str: JsonSchemaProps = { type: 'string', maxLength: 64 };
const strings: JsonSchemaProps = { type: 'array', maxItems: 8, items: str };
const ints: JsonSchemaProps = { type: 'array', maxItems: 8, items: { type: 'integer' } };
const int: JsonSchemaProps = { type: 'integer' };
const obj: JsonSchemaProps = { type: 'object', properties: { a: str, b: str } };
const map: JsonSchemaProps = { type: 'object', maxProperties: 8, additionalProperties: str };

const URLS = [
  'https://example.com/a?b=c',
  'https://example.com:8080/a%20b?k=v&k=w&x=1',
  'a',
  '',
  'INVALID!',
  '/path?q=1',
  'http://[::1]:80/',
  'http://host:port/',
  'mailto:x@y.z',
  'http://a b/',
  'http://x/%zz',
  '*',
  'HTTP://User@X.com/ü',
  '1http://x',
  ':x',
  'https://x/a b',
  'https://x/a%2fb',
];
const IPS = [
  '1.2.3.4',
  '01.2.3.4',
  '::1',
  '::ffff:1.2.3.4',
  '::ffff:c0a8:1',
  'fe80::1%eth0',
  '1.2.3',
  '256.0.0.1',
  '2001:db8::',
  '2001:DB8:0:0:0:0:0:1',
  ':::',
  '1::2::3',
  '',
  '127.0.0.1',
  '0.0.0.0',
  '::',
  '169.254.1.1',
  'fe80::1',
  '224.0.0.1',
  'ff02::1',
  '255.255.255.255',
  '10.0.0.1',
];
const CIDRS = [
  '10.0.0.0/8',
  '10.0.0.1/8',
  '10.0.0.0/33',
  '10.0.0.0/08',
  '::/0',
  '10.0.0.0',
  '::ffff:1.2.3.4/120',
  'fe80::/10',
  '10.1.0.0/16',
  '2001:db8::/32',
  'x/8',
];
const QUANTITIES = [
  '1',
  '1.5Gi',
  '100m',
  '1e3',
  '1E',
  '1.',
  '.',
  '-',
  '+1k',
  '1x',
  '',
  '1Ki1',
  '1e',
  '0.1n',
  '-1.5n',
  '1ee3',
  '1000m',
  '2Gi',
  '0.5',
  '-3',
  '1Mi',
];
const SEMVERS = [
  '1.2.3',
  'v1.2.3',
  '1.2',
  '01.2.3',
  '1.2.3-alpha.1+build.5',
  '1.2.3-01',
  '1.2.3+',
  'x',
  '',
  '1.0.0-alpha',
  '1.0.0-alpha.beta',
  '1.0.0-1',
  '2.0.0',
  'v01.02',
  'v1',
  'v1.2-rc.1',
  '1..3',
];
const NAMES = [
  'abc',
  'Abc',
  'a.b',
  'a'.repeat(64),
  '-a',
  'a-',
  'my_value',
  '1abc',
  '',
  'example.com/Name',
  'a/b/c',
];

/** The cases, by library. */
export const CEL_LIBRARY_CASES: readonly CelLibraryCase[] = [
  // URLs
  { library: 'url', schema: str, rule: 'isURL(self)', values: URLS },
  { library: 'url', schema: str, rule: "url(self).getScheme() == 'https'", values: URLS },
  { library: 'url', schema: str, rule: "url(self).getHost() == 'example.com:8080'", values: URLS },
  { library: 'url', schema: str, rule: "url(self).getHostname() == 'example.com'", values: URLS },
  { library: 'url', schema: str, rule: "url(self).getPort() == '8080'", values: URLS },
  { library: 'url', schema: str, rule: "url(self).getEscapedPath() == '/a%20b'", values: URLS },
  {
    library: 'url',
    schema: str,
    rule: "url(self).getQuery() == {'b': ['c']}",
    messageExpression: 'url(self).getHost()',
    values: URLS,
  },
  { library: 'url', schema: str, rule: '!isURL(self) || size(url(self).getQuery()) < 2', values: URLS },
  // IP
  { library: 'ip', schema: str, rule: 'isIP(self)', values: IPS },
  { library: 'ip', schema: str, rule: 'ip(self).family() == 4', values: IPS },
  { library: 'ip', schema: str, rule: '!isIP(self) || ip(self).isLoopback()', values: IPS },
  { library: 'ip', schema: str, rule: '!isIP(self) || ip(self).isUnspecified()', values: IPS },
  { library: 'ip', schema: str, rule: '!isIP(self) || ip(self).isLinkLocalMulticast()', values: IPS },
  { library: 'ip', schema: str, rule: '!isIP(self) || ip(self).isLinkLocalUnicast()', values: IPS },
  { library: 'ip', schema: str, rule: '!isIP(self) || ip(self).isGlobalUnicast()', values: IPS },
  { library: 'ip', schema: str, rule: 'ip.isCanonical(self)', values: IPS },
  {
    library: 'ip',
    schema: str,
    rule: "!isIP(self) || string(ip(self)) == '2001:db8::1'",
    messageExpression: 'string(ip(self))',
    values: IPS,
  },
  { library: 'ip', schema: str, rule: "!isIP(self) || ip(self) == ip('10.0.0.1')", values: IPS },
  // CIDR
  { library: 'cidr', schema: str, rule: 'isCIDR(self)', values: CIDRS },
  { library: 'cidr', schema: str, rule: "cidr(self).containsIP('10.1.2.3')", values: CIDRS },
  {
    library: 'cidr',
    schema: str,
    rule: "!isCIDR(self) || cidr(self).containsIP(ip('2001:db8::1'))",
    values: CIDRS,
  },
  {
    library: 'cidr',
    schema: str,
    rule: "!isCIDR(self) || cidr(self).containsCIDR('10.1.0.0/16')",
    values: CIDRS,
  },
  {
    library: 'cidr',
    schema: str,
    rule: "!isCIDR(self) || cidr(self).containsCIDR(cidr('::/1'))",
    values: CIDRS,
  },
  { library: 'cidr', schema: str, rule: "!isCIDR(self) || cidr(self).ip() == ip('10.0.0.1')", values: CIDRS },
  {
    library: 'cidr',
    schema: str,
    rule: "!isCIDR(self) || string(cidr(self).masked()) == '10.0.0.0/8'",
    messageExpression: 'string(cidr(self).masked())',
    values: CIDRS,
  },
  { library: 'cidr', schema: str, rule: '!isCIDR(self) || cidr(self).prefixLength() == 8', values: CIDRS },
  { library: 'cidr', schema: str, rule: '!isCIDR(self) || cidr(self).ip().family() == 6', values: CIDRS },
  { library: 'cidr', schema: str, rule: "!isCIDR(self) || cidr(self) == cidr('10.0.0.0/8')", values: CIDRS },
  // quantity
  { library: 'quantity', schema: str, rule: 'isQuantity(self)', values: QUANTITIES },
  {
    library: 'quantity',
    schema: str,
    rule: "quantity(self).isGreaterThan(quantity('1Gi'))",
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: "!isQuantity(self) || quantity(self).compareTo(quantity('100m')) == 0",
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: '!isQuantity(self) || quantity(self).isInteger()',
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: '!isQuantity(self) || quantity(self).asInteger() == 1000',
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: '!isQuantity(self) || quantity(self).asApproximateFloat() > 0.5',
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: "!isQuantity(self) || quantity(self).add(1).isLessThan(quantity('2'))",
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: "!isQuantity(self) || quantity(self).sub(quantity('1')).compareTo(quantity('0')) == 0",
    values: QUANTITIES,
  },
  {
    library: 'quantity',
    schema: str,
    rule: "!isQuantity(self) || quantity(self) == quantity('1')",
    values: QUANTITIES,
  },
  // semver
  { library: 'semver', schema: str, rule: 'isSemver(self)', values: SEMVERS },
  { library: 'semver', schema: str, rule: 'isSemver(self, true)', values: SEMVERS },
  {
    library: 'semver',
    schema: str,
    rule: "semver(self).isGreaterThan(semver('1.0.0-alpha.1'))",
    values: SEMVERS,
  },
  {
    library: 'semver',
    schema: str,
    rule: "!isSemver(self) || semver(self).compareTo(semver('1.0.0-alpha')) == 1",
    values: SEMVERS,
  },
  { library: 'semver', schema: str, rule: '!isSemver(self) || semver(self).major() == 1', values: SEMVERS },
  { library: 'semver', schema: str, rule: 'semver(self, true).minor() == 2', values: SEMVERS },
  { library: 'semver', schema: str, rule: '!isSemver(self) || semver(self).patch() == 3', values: SEMVERS },
  {
    library: 'semver',
    schema: str,
    rule: "!isSemver(self) || semver(self).isLessThan(semver('1.0.0'))",
    values: SEMVERS,
  },
  // lists
  {
    library: 'lists',
    schema: strings,
    rule: 'self.isSorted()',
    values: [['a', 'b'], ['b', 'a'], [], ['a', 'a']],
  },
  { library: 'lists', schema: ints, rule: 'self.sum() == 6', values: [[1, 2, 3], [6], [], [1]] },
  { library: 'lists', schema: ints, rule: 'self.min() == 1', values: [[3, 1, 2], [2], []] },
  { library: 'lists', schema: ints, rule: 'self.max() == 3', values: [[3, 1, 2], [2], []] },
  { library: 'lists', schema: strings, rule: "self.indexOf('b') == 1", values: [['a', 'b', 'b'], ['b'], []] },
  {
    library: 'lists',
    schema: strings,
    rule: "self.lastIndexOf('b') == 2",
    values: [['a', 'b', 'b'], ['b'], []],
  },
  // regex
  {
    library: 'regex',
    schema: str,
    rule: "self.find('[0-9]+') == '123'",
    values: ['ab123cd45', 'abc', '123'],
  },
  { library: 'regex', schema: str, rule: "self.findAll('[a-z]').size() == 3", values: ['a1b2c3', 'ab', ''] },
  {
    library: 'regex',
    schema: str,
    rule: "self.findAll('[a-z]', 2) == ['a', 'b']",
    values: ['abc', 'a', 'xab'],
  },
  // sets
  { library: 'sets', schema: strings, rule: "sets.contains(self, ['a'])", values: [['a', 'b'], ['b'], []] },
  {
    library: 'sets',
    schema: strings,
    rule: "sets.equivalent(self, ['a', 'b'])",
    values: [['b', 'a', 'a'], ['a'], []],
  },
  { library: 'sets', schema: strings, rule: "sets.intersects(self, ['x', 'a'])", values: [['a'], ['b'], []] },
  // strings
  { library: 'strings', schema: str, rule: "self.lastIndexOf('a', 2) == 1", values: ['bab', 'aba', 'baaa'] },
  { library: 'strings', schema: str, rule: "self.indexOf('b', 1) == 2", values: ['abb', 'bab', 'b'] },
  { library: 'strings', schema: str, rule: 'strings.quote(self) == \'"a\\\\nb"\'', values: ['a\nb', 'ab'] },
  // format
  {
    library: 'format',
    schema: str,
    rule: '!format.dns1123Label().validate(self).hasValue()',
    messageExpression: 'format.dns1123Label().validate(self).value()[0]',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.dns1123Subdomain().validate(self).hasValue()',
    messageExpression: 'format.dns1123Subdomain().validate(self).value()[0]',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.dns1035Label().validate(self).hasValue()',
    messageExpression: 'format.dns1035Label().validate(self).value()[0]',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.labelValue().validate(self).hasValue()',
    messageExpression: 'format.labelValue().validate(self).value()[0]',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.qualifiedName().validate(self).hasValue()',
    messageExpression: 'format.qualifiedName().validate(self).value()[0]',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.dns1123LabelPrefix().validate(self).hasValue()',
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: "!format.named('dns1035Label').value().validate(self).hasValue()",
    values: NAMES,
  },
  {
    library: 'format',
    schema: str,
    rule: 'format.named(self).hasValue()',
    values: ['uri', 'nope', 'dns1123Label'],
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.uri().validate(self).hasValue()',
    messageExpression: 'format.uri().validate(self).value()[0]',
    values: URLS,
  },
  {
    library: 'format',
    schema: str,
    rule: '!format.uuid().validate(self).hasValue()',
    values: ['123e4567-e89b-12d3-a456-426614174000', 'x'],
  },
  // optionals
  {
    library: 'optional',
    schema: obj,
    rule: "self.?a.orValue('x') == 'x'",
    values: [{}, { a: 'x' }, { a: 'y' }],
  },
  { library: 'optional', schema: str, rule: 'optional.ofNonZeroValue(self).hasValue()', values: ['', 'a'] },
  { library: 'optional', schema: obj, rule: "[?self.?a, 'b'].size() == 2", values: [{}, { a: 'x' }] },
  { library: 'optional', schema: obj, rule: "{?'k': self.?a}.size() == 1", values: [{}, { a: 'x' }] },
  {
    library: 'optional',
    schema: obj,
    rule: 'self.?a.optMap(x, x.size()).orValue(0) == 1',
    values: [{}, { a: 'x' }, { a: 'y' }],
  },
  {
    library: 'optional',
    schema: obj,
    rule: 'optional.none().or(self.?b).hasValue()',
    values: [{}, { b: 'x' }],
  },
  { library: 'optional', schema: obj, rule: "self.?a.value() == 'x'", values: [{}, { a: 'x' }, { a: 'y' }] },
  {
    library: 'optional',
    schema: map,
    rule: "self[?'k'].orValue('') == 'v'",
    values: [{}, { k: 'v' }, { k: 'w' }],
  },
  { library: 'optional', schema: strings, rule: "self[?0].orValue('') == 'a'", values: [[], ['a'], ['b']] },
  // two-variable comprehensions
  {
    library: 'comprehensions',
    schema: strings,
    rule: "self.all(i, v, i < 2 || v == 'x')",
    values: [
      ['a', 'b', 'x'],
      ['a', 'b', 'c'],
    ],
  },
  {
    library: 'comprehensions',
    schema: map,
    rule: "self.exists(k, v, k == 'a' && v == 'b')",
    values: [{ a: 'b' }, { a: 'c' }, {}],
  },
  {
    library: 'comprehensions',
    schema: strings,
    rule: "self.existsOne(i, v, v == 'a')",
    values: [['a', 'b'], ['a', 'a'], []],
  },
  {
    library: 'comprehensions',
    schema: strings,
    rule: 'self.transformList(i, v, v.size() + i) == [1, 2]',
    values: [
      ['a', 'b'],
      ['bb', 'a'],
    ],
  },
  {
    library: 'comprehensions',
    schema: map,
    rule: "self.transformMap(k, v, v + k) == {'a': 'ba'}",
    values: [{ a: 'b' }, { a: 'c' }],
  },
  {
    library: 'comprehensions',
    schema: map,
    rule: "self.transformMapEntry(k, v, {v: k}) == {'b': 'a'}",
    values: [{ a: 'b' }, { b: 'a' }],
  },
  // messageExpression, optionalOldSelf, transition rules
  {
    library: 'messageExpression',
    schema: str,
    rule: 'self.size() < 3',
    message: 'the static message',
    messageExpression: "'too long: ' + self",
    values: ['ab', 'abcd'],
  },
  {
    library: 'messageExpression',
    schema: str,
    rule: 'self.size() < 3',
    message: 'the static message',
    messageExpression: "self.size() > 5 ? '' : 'a\\nb'",
    values: ['abcd', 'abcdefg'],
  },
  {
    library: 'messageExpression',
    schema: str,
    rule: 'self.size() < 3',
    message: 'the static message',
    messageExpression: 'string(int(self))',
    values: ['abcd'],
  },
  {
    library: 'optionalOldSelf',
    schema: int,
    rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : self > 5',
    optionalOldSelf: true,
    values: [3, 7],
    updates: [
      [10, 8],
      [10, 12],
    ],
  },
  {
    library: 'optionalOldSelf',
    schema: int,
    rule: 'oldSelf.orValue(0) % 2 == 0 || self == oldSelf.value()',
    optionalOldSelf: true,
    values: [1, 2],
    updates: [
      [3, 3],
      [3, 4],
      [4, 5],
    ],
  },
  {
    library: 'transition',
    schema: str,
    rule: 'self == oldSelf',
    message: 'immutable',
    values: ['a'],
    updates: [
      ['a', 'a'],
      ['a', 'b'],
    ],
  },
];
