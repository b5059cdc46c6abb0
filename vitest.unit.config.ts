import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// Unit tests only: every project of vitest.config.ts, its `*.integration.test.ts` files left out,
// and no global setup, so no control plane is started (a unit test that asks for the shared
// control plane fails loudly). `.ci/run` runs this on the oldest Node that `engines` allows:
//   node node_modules/vitest/vitest.mjs run --config vitest.unit.config.ts
// (A CLI `--exclude` does not reach the projects, hence each project is extended here.)
const root = import.meta.dirname;
const projectDirs = [
  'scripts',
  ...['packages', 'apps'].flatMap((group) => readdirSync(path.join(root, group)).map((d) => `${group}/${d}`)),
].filter((dir) => existsSync(path.join(root, dir, 'vitest.config.ts')));

export default defineConfig({
  test: {
    projects: projectDirs.map((dir) => ({
      extends: `./${dir}/vitest.config.ts`,
      test: {
        root: path.join(root, dir),
        exclude: [...configDefaults.exclude, '**/*.integration.test.ts'],
      },
    })),
  },
});
