/**
 * `check:package` (run in a package directory by turbo after `build`): packs the package with
 * pnpm, then runs publint (strict) and attw (ESM-only profile) on the tarball, and checks that
 * typedoc's entry points match the `exports` map.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const dir = process.cwd();
const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
  name: string;
  private?: boolean;
  exports?: Record<string, string | Record<string, string>>;
};
if (pkg.private) process.exit(0);

const bin = (name: string): string => path.join(root, 'node_modules', '.bin', name);
const out = mkdtempSync(path.join(tmpdir(), 'kubeloom-pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', out], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack produced no tarball for ${pkg.name}`);
  const file = path.join(out, tarball);
  execFileSync(bin('publint'), ['run', '--strict', file], { cwd: dir, stdio: 'inherit' });
  execFileSync(bin('attw'), [file, '--profile', 'esm-only', '--format', 'table-flipped'], {
    cwd: dir,
    stdio: 'inherit',
  });

  // Docs entry points must be exactly the public subpaths.
  const typedocFile = path.join(dir, 'typedoc.json');
  if (existsSync(typedocFile)) {
    const entryPoints = (
      JSON.parse(readFileSync(typedocFile, 'utf8')) as { entryPoints: string[] }
    ).entryPoints
      .map((e) => `./${e}`)
      .sort();
    const sources = Object.entries(pkg.exports ?? {})
      .filter(([sub]) => sub !== './package.json')
      .map(([, target]) => (typeof target === 'string' ? target : target['@kubeloom/source']))
      .filter((s): s is string => typeof s === 'string')
      .sort();
    if (JSON.stringify(entryPoints) !== JSON.stringify(sources)) {
      throw new Error(
        `${pkg.name}: typedoc.json entryPoints ${entryPoints.join(', ')} differ from the exports map ${sources.join(', ')}`,
      );
    }
  }
  console.log(`${pkg.name}: publint, attw and docs entry points ok`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
