/**
 * Runtime validation throughput against Ajv compiled from the same full schema (issue 12 item 8).
 *
 * Three cells, each a real CRD from the shared corpus and a realistic, valid object:
 * - `httproute`: Gateway API HTTPRoute v1 (CEL-heavy: 83 rules), a route with three rules,
 *   matches, filters and weighted backends;
 * - `clusterissuer`: cert-manager ClusterIssuer v1 (a large schema, ~3,000 schema nodes, no CEL),
 *   an ACME issuer with a DNS-01 and an HTTP-01 solver with a pod template;
 * - `referencegrant`: Gateway API ReferenceGrant v1beta1 (a small schema).
 *
 * Variants:
 * - `ajv`: Ajv compiled from the CRD's schema as plain JSON Schema (types, properties, required,
 *   items, additionalProperties, enum, nullable, bounds, patterns, formats through the same format
 *   checkers; the `x-kubernetes-*` extensions, CEL rules and defaults dropped), validating in place;
 * - `kubeloom-no-cel`: `createValidator` on the same schema with the CEL rules removed (pruning,
 *   defaults, formats, list types, embedded resources, the apiserver's messages, on a copy);
 * - `kubeloom`: `createValidator` on the full schema (the above plus every CEL rule).
 *
 * Every measurement runs in a fresh Node process (a warm-up pass, then the timed pass); each cell
 * runs ROUNDS processes per variant with the variant order rotated every round, and reports the
 * median and range of objects/s (wall) and CPU µs per object, and each variant's ratio to Ajv.
 * `KUBELOOM_BENCH_SMOKE=1`: one round, few objects.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createValidator, formatChecker, type JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { type BenchMeasurement, reportBenchResults } from '@kubeloom/testing';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const ROUNDS = smoke ? 1 : 5;
const corpus =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');

const VARIANTS = ['ajv', 'kubeloom-no-cel', 'kubeloom'] as const;
type Variant = (typeof VARIANTS)[number];

interface CellSpec {
  readonly file: string;
  readonly version: string;
  readonly objects: number;
  readonly object: Record<string, unknown>;
}

const CELLS: Record<string, CellSpec> = {
  httproute: {
    file: 'gateway-api/gateway.networking.k8s.io_httproutes.yaml',
    version: 'v1',
    objects: 2_000,
    object: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'shop', namespace: 'web' },
      spec: {
        parentRefs: [{ name: 'edge', namespace: 'infra', sectionName: 'https' }],
        hostnames: ['shop.example.com', 'www.shop.example.com'],
        rules: [
          {
            matches: [
              {
                path: { type: 'PathPrefix', value: '/api' },
                headers: [{ name: 'x-env', value: 'prod' }],
                method: 'GET',
              },
            ],
            filters: [
              {
                type: 'RequestHeaderModifier',
                requestHeaderModifier: { add: [{ name: 'x-route', value: 'api' }] },
              },
            ],
            backendRefs: [
              { name: 'api', port: 8080, weight: 90 },
              { name: 'api-canary', port: 8080, weight: 10 },
            ],
            timeouts: { request: '10s' },
          },
          {
            matches: [{ path: { type: 'Exact', value: '/' } }],
            filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }],
          },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/static' } }],
            filters: [
              {
                type: 'URLRewrite',
                urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/assets' } },
              },
            ],
            backendRefs: [{ name: 'static', port: 80 }],
          },
        ],
      },
    },
  },
  clusterissuer: {
    file: 'cert-manager/cert-manager.io_clusterissuers.yaml',
    version: 'v1',
    objects: 4_000,
    object: {
      apiVersion: 'cert-manager.io/v1',
      kind: 'ClusterIssuer',
      metadata: { name: 'letsencrypt' },
      spec: {
        acme: {
          server: 'https://acme-v02.api.letsencrypt.org/directory',
          email: 'ops@example.com',
          privateKeySecretRef: { name: 'letsencrypt-key' },
          solvers: [
            {
              selector: { dnsZones: ['example.com'] },
              dns01: {
                cloudflare: {
                  email: 'ops@example.com',
                  apiTokenSecretRef: { name: 'cloudflare', key: 'token' },
                },
              },
            },
            {
              http01: {
                ingress: {
                  ingressClassName: 'nginx',
                  podTemplate: {
                    metadata: { labels: { app: 'solver' } },
                    spec: {
                      nodeSelector: { 'kubernetes.io/os': 'linux' },
                      tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
                      priorityClassName: 'high',
                    },
                  },
                },
              },
            },
          ],
        },
      },
    },
  },
  referencegrant: {
    file: 'gateway-api/gateway.networking.k8s.io_referencegrants.yaml',
    version: 'v1beta1',
    objects: 20_000,
    object: {
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      metadata: { name: 'allow-routes', namespace: 'backends' },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'web' }],
        to: [{ group: '', kind: 'Service', name: 'api' }],
      },
    },
  },
};

function crdSchema(spec: CellSpec): JsonSchemaProps {
  const crd = parse(readFileSync(path.join(corpus, spec.file), 'utf8')) as {
    spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: JsonSchemaProps } }> };
  };
  const v = crd.spec.versions.find((x) => x.name === spec.version);
  if (!v) throw new Error(`${spec.file} has no version ${spec.version}`);
  return v.schema.openAPIV3Schema;
}

/** The schema without its CEL rules. */
function withoutCel(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(withoutCel);
  if (s === null || typeof s !== 'object') return s;
  return Object.fromEntries(
    Object.entries(s)
      .filter(([k]) => k !== 'x-kubernetes-validations')
      .map(([k, v]) => [k, k === 'enum' || k === 'default' || k === 'example' ? v : withoutCel(v)]),
  );
}

const DROPPED = new Set(['description', 'default', 'example', 'externalDocs', 'title']);

/** The schema as plain JSON Schema for Ajv: Kubernetes extensions, CEL and annotations dropped. */
function plainJsonSchema(s: unknown, formats: Set<string>): unknown {
  if (Array.isArray(s)) return s.map((x) => plainJsonSchema(x, formats));
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-kubernetes-') || DROPPED.has(k)) continue;
    if (k === 'format' && typeof v === 'string') formats.add(v);
    if (k === 'properties') {
      out[k] = Object.fromEntries(
        Object.entries(v as object).map(([p, x]) => [p, plainJsonSchema(x, formats)]),
      );
    } else out[k] = k === 'enum' ? v : plainJsonSchema(v, formats);
  }
  return out;
}

type Validate = (obj: Record<string, unknown>) => boolean;

function build(variant: Variant, spec: CellSpec): Validate {
  const schema = crdSchema(spec);
  if (variant === 'ajv') {
    const formats = new Set<string>();
    const plain = plainJsonSchema(schema, formats) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const f of formats) ajv.addFormat(f, { type: 'string', validate: formatChecker(f) ?? (() => true) });
    const fn = ajv.compile(plain);
    return (obj) => fn(obj);
  }
  const v = createValidator(variant === 'kubeloom' ? schema : (withoutCel(schema) as JsonSchemaProps));
  return (obj) => {
    const r = v.validate(obj);
    if (!r.complete) throw new Error(`not every rule was evaluated: ${JSON.stringify(r.notEvaluated)}`);
    return r.valid;
  };
}

interface Result {
  /** Wall-clock ms of the timed pass. */
  readonly ms: number;
  /** CPU ms (user + system) of the timed pass. */
  readonly cpuMs: number;
  readonly objects: number;
}

/** Child mode: build, check the object is valid, warm up, then one timed pass. */
function child(variant: Variant, cellName: string): Result {
  const spec = CELLS[cellName]!;
  const validate = build(variant, spec);
  const n = smoke ? 50 : spec.objects;
  if (!validate(spec.object))
    throw new Error(`${cellName}: the ${variant} variant rejects the benchmark object`);
  for (let i = 0; i < n / 4; i++) validate(spec.object);
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) validate(spec.object);
  const ms = performance.now() - t0;
  const d = process.cpuUsage(cpu);
  return { ms, cpuMs: (d.user + d.system) / 1000, objects: n };
}

function measure(variant: Variant, cellName: string): Result {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), 'child', variant, cellName],
    { encoding: 'utf8', env: process.env, maxBuffer: 1 << 20 },
  );
  return JSON.parse(out) as Result;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const rate = (r: Result) => (r.objects / r.ms) * 1000;
const cpuPer = (r: Result) => (r.cpuMs * 1000) / r.objects;

function main(): void {
  const measurements: BenchMeasurement[] = [];
  const rows: string[] = [];
  for (const cellName of Object.keys(CELLS)) {
    const res: Record<Variant, Result[]> = { ajv: [], 'kubeloom-no-cel': [], kubeloom: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(i + r) % VARIANTS.length]!;
        res[variant].push(measure(variant, cellName));
      }
    }
    const ajvRate = median(res.ajv.map(rate));
    const ajvCpu = median(res.ajv.map(cpuPer));
    for (const variant of VARIANTS) {
      const rs = res[variant];
      measurements.push(
        { cell: cellName, variant, metric: 'objects-per-second', unit: 'objects/s', values: rs.map(rate) },
        { cell: cellName, variant, metric: 'cpu-per-object', unit: 'µs', values: rs.map(cpuPer) },
      );
      const rates = rs.map(rate);
      const cpus = rs.map(cpuPer);
      rows.push(
        `| ${cellName} | ${variant} | ${median(rates).toFixed(0)} (${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}) | ` +
          `${(ajvRate / median(rates)).toFixed(1)}× | ${median(cpus).toFixed(1)} (${Math.min(...cpus).toFixed(1)}–${Math.max(...cpus).toFixed(1)}) | ` +
          `${(median(cpus) / ajvCpu).toFixed(1)}× |`,
      );
    }
  }
  console.log(
    `Validation throughput, ${ROUNDS} fresh process(es) per variant and cell (order rotated), median (min–max), Node ${process.version}\n`,
  );
  console.log('| cell | variant | objects/s (wall) | Ajv ÷ this (wall) | CPU µs/object | CPU vs Ajv |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  reportBenchResults('codegen/validator', measurements);
}

if (process.argv[2] === 'child') {
  process.stdout.write(JSON.stringify(child(process.argv[3] as Variant, process.argv[4]!)));
} else {
  main();
}
