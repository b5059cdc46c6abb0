import { defineProject } from 'vitest/config';
import { packageProject } from '../configs/vitest.shared.ts';

// The repository's own scripts and their tests. Like every package, `@kubeloom/*` imports resolve
// to the TypeScript sources (the `@kubeloom/source` condition), so `pnpm test` needs no build.
const base = packageProject('repo');

export default defineProject({
  ...base,
  test: { ...base.test, include: ['*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
});
