/**
 * `pnpm check:boundaries`: fails on an import that goes up the stack (DESIGN §1), an import of a
 * package that is not declared in package.json, a declared dependency outside the layer's allow
 * list, a package whose turbo tag disagrees with scripts/layers.ts, or a circular import.
 *
 * Two independent checks: the declared package graph (package.json files), and the resolved
 * module graph (dependency-cruiser, sources resolved through the `@kubeloom/source` condition).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';
import { LAYERS, type Layer } from './layers.ts';

export interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

// Files that are never published or only run in tests. The published test-double subpaths
// (`fake/`, `testing/`) are production code: they may not import devDependencies.
const TEST_FILE = '(\\.test\\.ts|\\.test-d\\.ts|/bench/|/test/)';

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Checks declared dependencies against the layer table. `override` replaces package.json files (for tests). */
export function checkDeclared(root: string, override: Record<string, PackageJson> = {}): Violation[] {
  const out: Violation[] = [];
  const names = new Set(LAYERS.map((l) => l.name));
  for (const layer of LAYERS) {
    const pkg =
      override[layer.name] ??
      (JSON.parse(readFileSync(path.join(root, layer.dir, 'package.json'), 'utf8')) as PackageJson);
    const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    for (const d of deps) {
      if (names.has(d) && !layer.allow.includes(d)) {
        out.push({ rule: 'declared-dependency-up-the-stack', from: layer.name, to: d });
      }
    }
    for (const d of Object.keys(pkg.devDependencies ?? {})) {
      if (names.has(d) && !layer.allow.includes(d) && !layer.allowInTests.includes(d)) {
        out.push({ rule: 'declared-dev-dependency-not-allowed', from: layer.name, to: d });
      }
    }
    if (!override[layer.name]) {
      const turbo = JSON.parse(readFileSync(path.join(root, layer.dir, 'turbo.json'), 'utf8')) as {
        tags?: string[];
      };
      const expected = layer.dir.startsWith('apps/') ? 'app' : `layer-${path.basename(layer.dir)}`;
      if (!turbo.tags?.includes(expected)) {
        out.push({ rule: 'turbo-tag-mismatch', from: layer.name, to: expected });
      }
    }
  }
  return out;
}

function escapeRegExp(re: string): string {
  return re.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function rules(): IForbiddenRuleType[] {
  const out: IForbiddenRuleType[] = [
    {
      name: 'no-circular',
      comment: 'a runtime import cycle (cycles made only of `import type` are harmless and allowed)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-unresolvable',
      comment: 'an import that does not resolve: usually a package that is not declared in package.json',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-dependency-in-production',
      comment: 'published code importing a package that is only a devDependency: the tarball would break',
      severity: 'error',
      from: { path: '^packages/', pathNot: TEST_FILE },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm', 'npm-peer', 'npm-optional'] },
    },
    {
      name: 'no-undeclared-package',
      comment: 'an npm package that package.json does not list',
      severity: 'error',
      from: { path: '^(packages|apps)/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ];
  for (const layer of LAYERS) {
    const forbiddenProd = LAYERS.filter((l) => l !== layer && !layer.allow.includes(l.name)).map((l) =>
      escapeRegExp(l.dir),
    );
    const forbiddenTest = LAYERS.filter(
      (l) => l !== layer && !layer.allow.includes(l.name) && !layer.allowInTests.includes(l.name),
    ).map((l) => escapeRegExp(l.dir));
    if (forbiddenProd.length > 0) {
      out.push({
        name: `layer:${path.basename(layer.dir)}`,
        comment: `${layer.name} may import only ${layer.allow.join(', ') || 'no other kubeloom package'}`,
        severity: 'error',
        from: { path: `^${escapeRegExp(layer.dir)}/`, pathNot: TEST_FILE },
        to: { path: `^(${forbiddenProd.join('|')})/` },
      });
    }
    if (forbiddenTest.length > 0) {
      out.push({
        name: `layer-tests:${path.basename(layer.dir)}`,
        comment: `tests of ${layer.name} may also import ${layer.allowInTests.join(', ') || 'nothing more'}`,
        severity: 'error',
        from: { path: `^${escapeRegExp(layer.dir)}/` },
        to: { path: `^(${forbiddenTest.join('|')})/` },
      });
    }
  }
  return out;
}

/** Runs dependency-cruiser over the sources. With `includeFixtures`, the planted violations in testdata are cruised too. */
export async function checkImports(root: string, includeFixtures = false): Promise<Violation[]> {
  const previous = process.cwd();
  process.chdir(root);
  try {
    const dirs = LAYERS.map((l) => `${l.dir}/src`);
    const result = await cruise(
      dirs,
      {
        validate: true,
        ruleSet: { forbidden: rules() },
        doNotFollow: { path: 'node_modules' },
        exclude: {
          path: includeFixtures
            ? '^(packages|apps)/[^/]+/dist/'
            : '^(packages|apps)/[^/]+/(dist/|src/.*/testdata/|src/testdata/)',
        },
        tsPreCompilationDeps: true,
        combinedDependencies: false,
        preserveSymlinks: false,
        enhancedResolveOptions: {
          conditionNames: ['@kubeloom/source', 'import', 'types', 'node', 'default'],
          exportsFields: ['exports'],
          mainFields: ['module', 'main', 'types'],
          extensions: ['.ts', '.js', '.mjs', '.json', '.d.ts'],
        },
        tsConfig: undefined,
      },
      undefined,
      undefined,
    );
    const output = result.output;
    if (typeof output === 'string') throw new Error('unexpected string output from dependency-cruiser');
    return (output.summary.violations ?? []).map((v) => ({
      rule: v.rule.name,
      from: v.from,
      to: v.to,
    }));
  } finally {
    process.chdir(previous);
  }
}

async function main(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const violations = [...checkDeclared(root), ...(await checkImports(root))];
  if (violations.length === 0) {
    console.log(
      `boundaries: ok (${LAYERS.length} packages, stack ${LAYERS.slice(0, 5)
        .map((l: Layer) => path.basename(l.dir))
        .join(' < ')}; codegen and the app checked too)`,
    );
    return;
  }
  for (const v of violations) console.error(`boundaries: ${v.rule}: ${v.from} -> ${v.to}`);
  console.error(
    `boundaries: ${violations.length} violation(s). See scripts/layers.ts for the allowed imports.`,
  );
  process.exit(1);
}

if (import.meta.main) await main();
