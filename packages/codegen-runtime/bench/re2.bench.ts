/**
 * RE2 engine cost: the real RE2 engine (`compileRe2`, re2js) against JavaScript's RegExp — what the
 * former RE2 → RegExp translation ran — on every `pattern` of the shared CRD corpus that RegExp
 * also compiles, each tested against realistic field values. Compile (patterns/s) and match
 * (tests/s) throughput; each cell runs in ≥5 fresh processes in rotated order; median and range,
 * CPU time beside wall time. KUBELOOM_BENCH_SMOKE=1 runs tiny sizes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { compileRe2 } from '../src/index.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const corpus =
  process.env.KUBELOOM_CRD_CORPUS ?? path.resolve(import.meta.dirname, '../../../../shared/crds');
const ENGINES = ['re2', 'regexp'] as const;
type Engine = (typeof ENGINES)[number];

/** Field values of the kinds CRD patterns check: names, hosts, IPs, quantities, paths, headers. */
const INPUTS = [
  'my-app',
  'example.com',
  'sub.domain.example.com',
  '10.0.0.1',
  '2001:db8::1',
  '500m',
  '1.5Gi',
  '/api/v1/namespaces',
  'X-Forwarded-For',
  'application/json',
  'Invalid_Value!',
  'a'.repeat(63),
  '',
];

function corpusPatterns(): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'pattern' && typeof x === 'string') out.add(x);
        else walk(x);
      }
    }
  };
  for (const f of globSync('*/*.yaml', { cwd: corpus }).sort()) {
    for (const d of parseAllDocuments(readFileSync(path.join(corpus, f), 'utf8'))) walk(d.toJSON());
  }
  // Only what RegExp also compiles: the comparison is on the same patterns.
  return [...out].filter((p) => {
    try {
      new RegExp(p, 'u');
      return true;
    } catch {
      return false;
    }
  });
}

interface Cell {
  readonly compileWallMs: number;
  readonly matchWallMs: number;
  readonly matchCpuMs: number;
  readonly tests: number;
  readonly matches: number;
}

/** One measurement in this process. */
function runCell(engine: Engine, patterns: string[], rounds: number): Cell {
  const compile = (p: string): { test(s: string): boolean } =>
    engine === 're2' ? compileRe2(p) : new RegExp(p, 'u');
  const t0 = performance.now();
  // compileRe2 caches: compile each pattern once, as the validator does per schema.
  const compiled = patterns.map(compile);
  const compileWallMs = performance.now() - t0;
  let matches = 0;
  let tests = 0;
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const re of compiled) {
      for (const s of INPUTS) {
        if (re.test(s)) matches++;
        tests++;
      }
    }
  }
  const matchWallMs = performance.now() - t1;
  const cpu = process.cpuUsage(cpu0);
  return { compileWallMs, matchWallMs, matchCpuMs: (cpu.user + cpu.system) / 1000, tests, matches };
}

const cellEngine = process.env.KUBELOOM_RE2_BENCH_CELL as Engine | undefined;
if (cellEngine) {
  const patterns = corpusPatterns();
  console.log(JSON.stringify(runCell(cellEngine, patterns, smoke ? 2 : 400)));
} else if (!existsSync(corpus)) {
  console.log(`(corpus absent at ${corpus}: RE2 benchmark skipped)`);
} else {
  const runs = smoke ? 1 : 5;
  const results = new Map<Engine, Cell[]>(ENGINES.map((e) => [e, []]));
  for (let i = 0; i < runs; i++) {
    // Rotated order: each engine runs first in some rounds.
    const order = i % 2 === 0 ? ENGINES : [...ENGINES].reverse();
    for (const engine of order) {
      const res = spawnSync(process.execPath, ['--conditions=@kubeloom/source', import.meta.filename], {
        encoding: 'utf8',
        env: { ...process.env, KUBELOOM_RE2_BENCH_CELL: engine },
      });
      if (res.status !== 0) throw new Error(`cell ${engine} failed: ${res.stderr}`);
      results.get(engine)!.push(JSON.parse(res.stdout.trim().split('\n').pop()!) as Cell);
    }
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
  };
  const fmt = (x: { median: number; min: number; max: number }, digits = 0) =>
    `${x.median.toFixed(digits)} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`;
  const patterns = corpusPatterns().length;
  const first = results.get('re2')![0]!;
  const regexpMatches = results.get('regexp')![0]!.matches;
  console.log(
    `${patterns} corpus patterns × ${INPUTS.length} inputs; ${first.tests} tests per process, ${runs} processes per engine`,
  );
  console.log(`same verdicts: ${first.matches === regexpMatches ? 'yes' : 'NO'} (${first.matches} matches)`);
  console.log(
    '| engine | compile, ms (all patterns) | match, Mtests/s wall | match CPU, ms | match wall, ms |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  const medians = new Map<Engine, number>();
  for (const engine of ENGINES) {
    const cells = results.get(engine)!;
    const rate = stats(cells.map((c) => c.tests / c.matchWallMs / 1000));
    medians.set(engine, rate.median);
    console.log(
      `| ${engine} | ${fmt(stats(cells.map((c) => c.compileWallMs)), 2)} | ${fmt(rate, 2)} | ${fmt(stats(cells.map((c) => c.matchCpuMs)))} | ${fmt(stats(cells.map((c) => c.matchWallMs)))} |`,
    );
  }
  console.log(`RegExp / RE2 match throughput: ${(medians.get('regexp')! / medians.get('re2')!).toFixed(1)}×`);
}
