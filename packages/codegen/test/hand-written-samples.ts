// Hand-written CEL violations for the corpus rules the generator does not derive from the rule
// (a violation needs a specific structure several levels deep, or many items), and the rules no
// object can violate (the schema rejects every violating value first, so CEL never runs).
import type { Via } from './samples.ts';

/** One hand-written sample, built from the CRD's valid base object. */
export interface HandWritten {
  /** What it violates. */
  readonly label: string;
  /** The rule it targets, when it targets one. */
  readonly rule?: string;
  /** How it is sent (default `create`). */
  readonly via?: Via;
  /** Builds the object from a copy of the base. */
  build(base: Record<string, unknown>): Record<string, unknown>;
}

/** A rule no object can violate, and why. */
export interface Unviolatable {
  /** A distinctive part of the rule. */
  readonly rule: string;
  /** Why no object violates it. */
  readonly reason: string;
}

type Obj = Record<string, unknown>;

function withSpec(base: Obj, spec: Obj): Obj {
  return { ...base, spec: { ...(base.spec as Obj | undefined), ...spec } };
}

const redirectPrefix = {
  type: 'RequestRedirect',
  requestRedirect: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/b' } },
};
const rewritePrefix = {
  type: 'URLRewrite',
  urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/b' } },
};
const twoMatches = [
  { path: { type: 'PathPrefix', value: '/a' } },
  { path: { type: 'PathPrefix', value: '/c' } },
];
const service = { name: 'svc', port: 80 };

function manyMatches(n: number, match: (i: number) => Obj): Obj[] {
  const rules: Obj[] = [];
  for (let i = 0; i < n; i += 64) {
    rules.push({ matches: Array.from({ length: Math.min(64, n - i) }, (_, j) => match(i + j)) });
  }
  return rules;
}

/** Hand-written samples by CRD name (`<plural>.<group>`). */
export const HAND_WRITTEN: Readonly<Record<string, readonly HandWritten[]>> = {
  'gateways.gateway.networking.k8s.io': [
    {
      label: 'two Hostname addresses with the same value',
      rule: "a1.type == 'Hostname'",
      build: (b) =>
        withSpec(b, {
          addresses: [
            { type: 'Hostname', value: 'gw.example.com' },
            { type: 'Hostname', value: 'gw.example.com' },
          ],
        }),
    },
  ],
  'grpcroutes.gateway.networking.k8s.io': [
    {
      label: '129 matches over three rules (at most 128)',
      rule: '<= 128',
      build: (b) => withSpec(b, { rules: manyMatches(129, (i) => ({ method: { service: `svc${i}` } })) }),
    },
  ],
  'httproutes.gateway.networking.k8s.io': [
    {
      label: '129 matches over three rules (at most 128)',
      rule: '<= 128',
      build: (b) =>
        withSpec(b, { rules: manyMatches(129, (i) => ({ path: { type: 'PathPrefix', value: `/p${i}` } })) }),
    },
    {
      label: 'a ReplacePrefixMatch redirect with two matches',
      build: (b) => withSpec(b, { rules: [{ matches: twoMatches, filters: [redirectPrefix] }] }),
    },
    {
      label: 'a ReplacePrefixMatch rewrite with two matches',
      build: (b) => withSpec(b, { rules: [{ matches: twoMatches, filters: [rewritePrefix] }] }),
    },
    {
      label: 'a backend ReplacePrefixMatch redirect with two matches',
      build: (b) =>
        withSpec(b, {
          rules: [{ matches: twoMatches, backendRefs: [{ ...service, filters: [redirectPrefix] }] }],
        }),
    },
    {
      label: 'a backend ReplacePrefixMatch rewrite with two matches',
      build: (b) =>
        withSpec(b, {
          rules: [{ matches: twoMatches, backendRefs: [{ ...service, filters: [rewritePrefix] }] }],
        }),
    },
    {
      label: 'a redirect and a rewrite in one rule',
      build: (b) =>
        withSpec(b, {
          rules: [
            {
              filters: [
                { type: 'RequestRedirect', requestRedirect: { hostname: 'example.com' } },
                { type: 'URLRewrite', urlRewrite: { hostname: 'example.com' } },
              ],
            },
          ],
        }),
    },
    {
      label: 'a redirect and a rewrite in one backend',
      build: (b) =>
        withSpec(b, {
          rules: [
            {
              backendRefs: [
                {
                  ...service,
                  filters: [
                    { type: 'RequestRedirect', requestRedirect: { hostname: 'example.com' } },
                    { type: 'URLRewrite', urlRewrite: { hostname: 'example.com' } },
                  ],
                },
              ],
            },
          ],
        }),
    },
    {
      label: 'a backend request timeout longer than the request timeout',
      rule: 'duration(self.backendRequest) > duration(self.request)',
      build: (b) => withSpec(b, { rules: [{ timeouts: { request: '1s', backendRequest: '2s' } }] }),
    },
  ],
};

/** Rules of the corpus that no object violates, by CRD name. */
export const UNVIOLATABLE: Readonly<Record<string, readonly Unviolatable[]>> = {
  'httproutes.gateway.networking.k8s.io': [
    {
      rule: "self.type in ['Exact','PathPrefix'] || self.type == 'RegularExpression'",
      reason:
        'path.type is an enum of exactly these three values: any other value is an enum error, and the apiserver does not run CEL rules on an object with enum errors',
    },
  ],
};
