// Differential validation: the runtime validator against kube-apiserver (dryRun=All) on generated
// valid and invalid objects for the fixtures and every corpus CRD.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { createValidator, type ValidationResult } from '@kubeloom/codegen-runtime';
import {
  type ApiError,
  createKubeClient,
  type KubeClient,
  type KubeObject,
  noopLogger,
  type ResourceDescriptor,
  type StatusCause,
} from '@kubeloom/kube';
import { type CRDObject, createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusModels } from '../test/corpus.ts';
import { HAND_WRITTEN, UNVIOLATABLE } from '../test/hand-written-samples.ts';
import { testOutputDir } from '../test/helpers.ts';
import { type Category, generateSamples, type RuleSite, type Sample } from '../test/samples.ts';
import { synthesize } from '../test/synthesize.ts';
import { readCrds } from './crd-reader.ts';
import { resourceToCrd } from './crd-writer.ts';
import { generateCrds } from './generate.ts';
import type { ResourceModel } from './ir.ts';

const testdata = path.join(import.meta.dirname, 'testdata');
/** Samples kept per corpus CRD (the walk generates more; see `generateSamples`). */
const LIMIT = 420;
/** Samples kept per fixture CRD (written to exercise every keyword). */
const FIXTURE_LIMIT = 1000;
/** Requests in flight at once. */
const CONCURRENCY = 6;

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const plane = sharedControlPlane();
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  namespace = await createTestNamespace(plane.kubeConfig, 'codegen-diff');
});

afterAll(() => kube?.shutdown());

function descriptor(r: ResourceModel, version: string): ResourceDescriptor {
  return { group: r.group, version, kind: r.kind, plural: r.plural, namespaced: r.scope === 'Namespaced' };
}

interface Outcome {
  readonly accepted: boolean;
  readonly message: string;
  readonly causes: readonly StatusCause[];
}

interface Verdict {
  readonly sample: Sample;
  readonly mine: ValidationResult;
  readonly server: Outcome;
}

interface CrdStats {
  samples: number;
  agree: number;
  /** Rejected by the apiserver only for rules the validator reported as not evaluated client-side. */
  notEvaluatedOnly: number;
  accepted: number;
  rules: number;
  rulesViolated: number;
  /** Rules no object can violate (the schema rejects every violating value before CEL runs). */
  rulesUnviolatable: number;
  nodes: number;
  byCategory: Partial<Record<Category, number>>;
}

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    await p;
    return { accepted: true, message: '', causes: [] };
  } catch (e) {
    const err = e as ApiError;
    return { accepted: false, message: err.message, causes: err.causes ?? [] };
  }
}

async function pool<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/** One CRD version under test: the resource, the version's name and its schema. */
interface VersionUnderTest {
  readonly r: ResourceModel;
  readonly version: string;
  readonly schema: JsonSchemaProps;
}

/**
 * Sends the samples of one CRD version; objects needed by update samples are created for real
 * first. `tag` prefixes the names of the objects.
 */
async function runSamples(
  { r, version, schema }: VersionUnderTest,
  samples: readonly Sample[],
  tag: string,
): Promise<Verdict[]> {
  const d = descriptor(r, version);
  const v = r.versions.find((x) => x.name === version)!;
  const validator = createValidator(schema, { scale: v.scale });
  const meta = (name: string) => ({ name, ...(r.scope === 'Namespaced' ? { namespace } : {}) });
  const olds = new Map<string, KubeObject>();
  const created: KubeObject[] = [];
  try {
    for (const s of samples) {
      if (!s.old) continue;
      const key = JSON.stringify(s.old);
      if (olds.has(key)) continue;
      const obj = { ...s.old, metadata: meta(`${tag}-old${olds.size}`) } as KubeObject;
      let made = await kube.api.create(d, obj);
      created.push(made);
      if (s.old.status !== undefined && v.statusSubresource) {
        made = await kube.api.update(d, { ...made, status: s.old.status } as KubeObject, {
          subresource: 'status',
        });
      }
      olds.set(key, made);
    }
    return await pool(samples, CONCURRENCY, async (s, i) => {
      if (s.via === 'create') {
        const obj = { ...s.object, metadata: meta(`${tag}-s${i}`) } as KubeObject;
        const mine = validator.validate(obj);
        const server = await outcome(kube.api.create(d, obj, { dryRun: 'All' }));
        return { sample: s, mine, server };
      }
      const old = olds.get(JSON.stringify(s.old))!;
      const obj = { ...s.object, metadata: old.metadata } as KubeObject;
      const mine = validator.validate(obj, {
        oldObject: old,
        ...(s.via === 'status' ? { subresource: 'status' as const } : {}),
      });
      const server = await outcome(
        kube.api.update(d, obj, { dryRun: 'All', ...(s.via === 'status' ? { subresource: 'status' } : {}) }),
      );
      return { sample: s, mine, server };
    });
  } finally {
    for (const c of created)
      await kube.api
        .delete({ resource: d, name: c.metadata!.name!, namespace: c.metadata?.namespace })
        .catch(() => undefined);
  }
}

/** A rejection the validator foresaw only as "not evaluated client-side": every cause sits at such a rule. */
function explainedByUnevaluated(v: Verdict): boolean {
  if (v.mine.notEvaluated.length === 0) return false;
  const paths = v.mine.notEvaluated.map((n) => n.path);
  const causes = v.server.causes.length > 0 ? v.server.causes : [{ field: '<nil>' }];
  return causes.every((c) =>
    paths.some(
      (p) => p === '<nil>' || c.field === p || c.field?.startsWith(`${p}.`) || c.field?.startsWith(`${p}[`),
    ),
  );
}

/**
 * For a sample both reject (the validator evaluating everything): do the two report the same
 * error paths and, exactly, the same messages, and do paths that differ differ only in how map
 * keys are written (`[key]` against `.key`)?
 */
function errorAgreement(v: Verdict): { paths: boolean; messages: boolean; notationOnly: boolean } {
  const same = (a: string[], b: string[]) => JSON.stringify(a.sort()) === JSON.stringify(b.sort());
  const mine = [...new Set(v.mine.errors.map((e) => e.path))];
  const server = [...new Set(v.server.causes.map((c) => c.field ?? ''))];
  const keysAsDots = (ps: string[]) => ps.map((p) => p.replace(/\[([^\]\d][^\]]*)\]/g, '.$1'));
  const paths = same(mine, server);
  const messages = same(mineMessages(v), serverMessages(v));
  return { paths, messages, notationOnly: !paths && same(keysAsDots(mine), keysAsDots(server)) };
}

const mineMessages = (v: Verdict) => v.mine.errors.map((e) => `${e.path}: ${e.message}`).sort();
const serverMessages = (v: Verdict) =>
  v.server.causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).sort();

/** The messages of a sample both reject that differ, apiserver's first. */
function describeMessages(r: ResourceModel, v: Verdict): string {
  const mine = mineMessages(v);
  const server = serverMessages(v);
  const only = (a: string[], b: string[]) => a.filter((x) => !b.includes(x)).join(' | ');
  return `${r.kind} ${v.sample.label}: apiserver ${only(server, mine)} ; validator ${only(mine, server)}`;
}

function describeVerdict(r: ResourceModel, v: Verdict): string {
  const mine = v.mine.valid
    ? 'accepts'
    : `rejects (${v.mine.errors
        .map((x) => `${x.path}: ${x.message}`)
        .join('; ')
        .slice(0, 300)})`;
  const server = v.server.accepted ? 'accepts' : `rejects (${v.server.message.slice(0, 300)})`;
  const ne = v.mine.notEvaluated.length ? ` [${v.mine.notEvaluated.length} not evaluated client-side]` : '';
  return `${r.kind} [${v.sample.via}] ${v.sample.label}: validator ${mine}${ne}, apiserver ${server}`;
}

function storageSchema(r: ResourceModel): { version: string; schema: JsonSchemaProps } {
  const v = r.versions.find((x) => x.storage)!;
  const json = JSON.parse(
    JSON.stringify(resourceToCrd(r, { dropDescriptions: true }).spec.versions),
  ) as Array<{
    name: string;
    schema: { openAPIV3Schema: JsonSchemaProps };
  }>;
  return { version: v.name, schema: json.find((x) => x.name === v.name)!.schema.openAPIV3Schema };
}

describe('differential validation against kube-apiserver (dryRun=All)', () => {
  it('agrees exactly on every sample the validator evaluates, for the fixtures and every corpus CRD', async () => {
    const egress = generateCrds(
      [path.join(testdata, 'egress/types.ts'), path.join(testdata, 'markers/types.ts')],
      { baseDir: testdata },
    ).model.resources;
    const fixtures = ['widgets.yaml', 'gadgets.yaml'].flatMap((f) =>
      readCrds(readFileSync(path.join(testdata, 'crds', f), 'utf8'), f),
    );
    const models = [...egress, ...fixtures, ...corpusModels()];
    const own = new Set([...egress, ...fixtures]);
    let generating = 0;
    const started = performance.now();
    await installCRDs(
      sharedControlPlane().kubeConfig,
      models.map((m) => resourceToCrd(m) as unknown as CRDObject),
      { timeoutMs: 90_000 },
    );
    const perCrd: Record<string, CrdStats> = {};
    const disagreements: string[] = [];
    const unviolated: string[] = [];
    const notEvaluatedOnly: string[] = [];
    const errorsCompared = { samples: 0, samePaths: 0, sameMessages: 0 };
    /** Samples for which the validator reported any rule or pattern as not evaluated client-side. */
    let samplesWithUnevaluated = 0;
    const unevaluatedRules = new Set<string>();
    const pathNotation: string[] = [];
    const messageDiffs: string[] = [];
    for (const [ci, r] of models.entries()) {
      const name = `${r.plural}.${r.group}`;
      const { version, schema } = storageSchema(r);
      const v = r.versions.find((x) => x.name === version)!;
      const base: Record<string, unknown> = {
        ...(synthesize(schema) as Record<string, unknown>),
        apiVersion: `${r.group}/${version}`,
        kind: r.kind,
        metadata: { name: 'sample' },
      };
      delete base.status;
      const validator = createValidator(schema, { scale: v.scale });
      const t0 = performance.now();
      const generated = generateSamples(schema, {
        base,
        validator,
        limit: own.has(r) ? FIXTURE_LIMIT : LIMIT,
        statusSubresource: v.statusSubresource === true,
      });
      const extra = (HAND_WRITTEN[name] ?? []).map(
        (h): Sample => ({
          label: `hand-written: ${h.label}`,
          category: 'hand-written',
          via: h.via ?? 'create',
          object: h.build(structuredClone(generated.samples[0]!.object)),
          ...(h.rule ? { rule: h.rule } : {}),
          ...(h.via && h.via !== 'create' ? { old: generated.samples[0]!.object } : {}),
        }),
      );
      const samples = [...generated.samples, ...extra];
      generating += performance.now() - t0;
      const verdicts = await runSamples({ r, version, schema }, samples, `c${ci}`);
      const stats: CrdStats = {
        samples: verdicts.length,
        agree: 0,
        notEvaluatedOnly: 0,
        accepted: 0,
        rules: generated.rules.length,
        rulesViolated: 0,
        rulesUnviolatable: 0,
        nodes: generated.nodes,
        byCategory: {},
      };
      for (const x of verdicts) {
        stats.byCategory[x.sample.category] = (stats.byCategory[x.sample.category] ?? 0) + 1;
        if (x.mine.notEvaluated.length > 0) samplesWithUnevaluated++;
        for (const n of x.mine.notEvaluated)
          unevaluatedRules.add(`${name} ${n.path}: ${n.rule} (${n.reason})`);
        if (x.server.accepted) stats.accepted++;
        else if (!x.mine.valid && x.mine.notEvaluated.length === 0) {
          const a = errorAgreement(x);
          errorsCompared.samples++;
          if (a.paths) errorsCompared.samePaths++;
          if (a.messages) errorsCompared.sameMessages++;
          else messageDiffs.push(describeMessages(r, x));
          if (a.notationOnly) pathNotation.push(describeVerdict(r, x));
        }
        if (x.mine.valid === x.server.accepted) stats.agree++;
        else if (x.mine.valid && !x.server.accepted && explainedByUnevaluated(x)) {
          stats.notEvaluatedOnly++;
          notEvaluatedOnly.push(describeVerdict(r, x));
        } else disagreements.push(describeVerdict(r, x));
      }
      const violated = (site: RuleSite) =>
        verdicts.some(
          (x) =>
            !x.server.accepted &&
            (x.mine.errors.some((e) => e.rule === site.rule) ||
              (x.mine.valid && x.mine.notEvaluated.some((n) => n.rule === site.rule))),
        );
      const sites = [...new Map(generated.rules.map((s) => [`${s.path}|${s.rule}`, s])).values()];
      stats.rules = sites.length;
      const excused = UNVIOLATABLE[name] ?? [];
      for (const site of sites) {
        const excuse = excused.find((u) => site.rule.includes(u.rule));
        if (violated(site)) {
          stats.rulesViolated++;
          if (excuse)
            unviolated.push(`${name} ${site.path}: listed as unviolatable but violated: ${site.rule}`);
        } else if (excuse) stats.rulesUnviolatable++;
        else unviolated.push(`${name} ${site.path}: ${site.rule}`);
      }
      perCrd[name] = stats;
    }
    const total = Object.values(perCrd).reduce((n, s) => n + s.samples, 0);
    const agree = Object.values(perCrd).reduce((n, s) => n + s.agree, 0);
    const neOnly = Object.values(perCrd).reduce((n, s) => n + s.notEvaluatedOnly, 0);
    const accepted = Object.values(perCrd).reduce((n, s) => n + s.accepted, 0);
    const evaluated = total - neOnly;
    const lines = [
      'differential validation (runtime validator vs kube-apiserver, dryRun=All):',
      ...Object.entries(perCrd).map(
        ([n, s]) =>
          `  ${n}: ${s.agree}/${s.samples - s.notEvaluatedOnly} agree (${((100 * s.agree) / Math.max(1, s.samples - s.notEvaluatedOnly)).toFixed(1)}%), ${s.notEvaluatedOnly} rejected only by rules not evaluated client-side, apiserver accepted ${s.accepted}; ${s.rulesViolated}/${s.rules} CEL rules violated${s.rulesUnviolatable ? ` (${s.rulesUnviolatable} cannot be)` : ''}; ${s.nodes} schema nodes walked`,
      ),
      `  generation ${(generating / 1000).toFixed(1)} s, total ${((performance.now() - started) / 1000).toFixed(1)} s`,
      `  errors of the ${errorsCompared.samples} samples both reject: same paths ${errorsCompared.samePaths} (${((100 * errorsCompared.samePaths) / Math.max(1, errorsCompared.samples)).toFixed(1)}%), same messages ${errorsCompared.sameMessages} (${((100 * errorsCompared.sameMessages) / Math.max(1, errorsCompared.samples)).toFixed(1)}%)`,
      `  not evaluated client-side: ${unevaluatedRules.size} rules, in ${samplesWithUnevaluated} samples`,
      `  total: ${agree}/${evaluated} agree (${((100 * agree) / Math.max(1, evaluated)).toFixed(2)}%) of ${total} samples; ${neOnly} rejected only by rules reported as not evaluated client-side; apiserver accepted ${accepted}, rejected ${total - accepted}`,
    ];
    console.log(lines.join('\n'));
    for (const d of disagreements.slice(0, 40)) console.log(`  DISAGREEMENT ${d}`);
    for (const u of unviolated.slice(0, 40)) console.log(`  UNVIOLATED ${u}`);
    for (const n of notEvaluatedOnly.slice(0, 10)) console.log(`  NOT EVALUATED ${n}`);
    for (const m of messageDiffs.slice(0, 20)) console.log(`  MESSAGES ${m}`);
    writeFileSync(
      path.join(testOutputDir('differential'), 'report.json'),
      JSON.stringify(
        {
          total,
          agree,
          evaluated,
          notEvaluatedOnly: neOnly,
          samplesWithUnevaluated,
          unevaluatedRules: [...unevaluatedRules],
          errorsCompared,
          pathNotation,
          messageDiffs,
          accepted,
          perCrd,
          disagreements,
          unviolated,
          notEvaluatedOnlySamples: notEvaluatedOnly,
        },
        null,
        2,
      ),
    );
    expect(disagreements).toEqual([]);
    // map entries are written as the apiserver writes them: `.key` in OpenAPI errors, `[key]` elsewhere
    expect(pathNotation).toEqual([]);
    expect(unviolated).toEqual([]);
    // every rule of the fixtures and the corpus is evaluated client-side
    expect([...unevaluatedRules]).toEqual([]);
    expect(agree).toBe(evaluated);
    expect(total).toBeGreaterThan(3000);
    // generous: about 150 s on an idle 2-core machine, several times that when it is shared
  }, 1_800_000);
});
