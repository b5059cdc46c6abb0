/**
 * What the operator's image must not hold, checked on its mounted root filesystem: no TypeScript
 * compiler anywhere, none of the operator's devDependencies (one that a production dependency
 * needs in its own right, e.g. `yaml` for `@kubeloom/krt`, is allowed below node_modules/.pnpm,
 * and reported), no test, benchmark or script file of ours, and nothing below /app that the
 * operator's user could change (every file root's, none writable by others). Test files that
 * third-party packages publish are counted, not failed: they are those packages' contents.
 */

import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The findings; `problems` empty means the image passed. */
export interface ContentsReport {
  readonly problems: string[];
  /** devDependencies present only because a production package depends on them. */
  readonly transitive: string[];
  /** Test files shipped inside third-party packages. */
  readonly thirdPartyTestFiles: number;
  /** Files below /app. */
  readonly appFiles: number;
}

const TEST_FILE = /\.(test|test-d|integration\.test|bench)\.[cm]?[jt]s$|\.test\.d\.ts$/;
const OURS_NOT_SHIPPED = [
  'src',
  'test',
  'bench',
  'scripts',
  'vitest.config.ts',
  'tsconfig.json',
  'Dockerfile',
];

/** Checks the image mounted at `root`; `devDependencies` are the operator package's. */
export function checkImageContents(root: string, devDependencies: readonly string[]): ContentsReport {
  const problems: string[] = [];
  const app = path.join(root, 'app');
  const files = walk(app);
  const store = path.join(app, 'node_modules/.pnpm');
  const installed = existsSync(store) ? readdirSync(store) : [];
  const storeName = (pkg: string) => pkg.replace('/', '+');

  const compilers = walk(root, (dir) => !['proc', 'sys', 'dev'].includes(path.basename(dir))).filter((f) =>
    /\/node_modules\/typescript\/package\.json$|\/bin\/tsc$/.test(f),
  );
  if (compilers.length > 0) problems.push(`a TypeScript compiler: ${compilers.join(', ')}`);

  const needed = productionDependencyNames(store);
  const transitive: string[] = [];
  for (const dev of devDependencies) {
    if (existsSync(path.join(app, 'node_modules', dev)))
      problems.push(`devDependency ${dev} installed for the operator`);
    if (!installed.some((d) => d.startsWith(`${storeName(dev)}@`))) continue;
    if (needed.has(dev)) transitive.push(dev);
    else problems.push(`devDependency ${dev} in node_modules/.pnpm, needed by no production package`);
  }

  let thirdPartyTestFiles = 0;
  for (const file of files) {
    const rel = path.relative(app, file);
    const ours = !rel.startsWith('node_modules/') || /node_modules\/\.pnpm\/@kubeloom\+/.test(rel);
    if (TEST_FILE.test(rel) || /(^|\/)(test|__tests__)\//.test(rel)) {
      if (ours) problems.push(`test file /app/${rel}`);
      else thirdPartyTestFiles++;
    }
  }
  for (const entry of OURS_NOT_SHIPPED)
    if (existsSync(path.join(app, entry))) problems.push(`/app/${entry} (not part of the program)`);
  if (!existsSync(path.join(app, 'dist/main.js'))) problems.push('/app/dist/main.js missing');
  const dirs = new Set(files.map((f) => path.dirname(f)).filter((d) => d.startsWith(app)));
  const writable = [...dirs, ...files].filter((f) => {
    const st = lstatSync(f);
    return st.uid !== 0 || (!st.isSymbolicLink() && (st.mode & 0o002) !== 0);
  });
  if (writable.length > 0)
    problems.push(
      `${writable.length} paths below /app not root's or writable by others, e.g. /${path.relative(root, writable[0] ?? '')}`,
    );
  return { problems, transitive, thirdPartyTestFiles, appFiles: files.length };
}

/** Every name some installed package lists in its dependencies (or optional / peer dependencies). */
function productionDependencyNames(store: string): Set<string> {
  const names = new Set<string>();
  if (!existsSync(store)) return names;
  for (const manifest of walk(store, () => true, 4).filter((f) => f.endsWith('/package.json'))) {
    try {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
        for (const name of Object.keys(pkg[field] ?? {})) names.add(name);
    } catch {
      // a fixture named package.json inside some package: not a manifest
    }
  }
  return names;
}

/** Files below `dir` (not following symlinks), descending into directories `enter` accepts, `depth` levels deep at most. */
function walk(
  dir: string,
  enter: (dir: string) => boolean = () => true,
  depth = Number.POSITIVE_INFINITY,
): string[] {
  const out: string[] = [];
  const visit = (d: string, level: number) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (level < depth && enter(p)) visit(p, level + 1);
      } else out.push(p);
    }
  };
  if (existsSync(dir)) visit(dir, 0);
  return out;
}
