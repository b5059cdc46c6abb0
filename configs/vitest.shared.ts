/**
 * Shared Vitest settings for every package: the `@kubeloom/source` condition (sibling packages
 * are loaded from their TypeScript sources, no build needed), colocated tests and generous
 * timeouts: a test's bound is well above `waitFor`'s default 30 s, so a wait that fails on a loaded
 * machine reports what it waited for instead of a bare test timeout.
 */
const conditions = ['@kubeloom/source', 'module', 'node', 'development|production'];

export function packageProject(name: string) {
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@kubeloom/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node' as const,
      testTimeout: 120_000,
      hookTimeout: 180_000,
      restoreMocks: true,
    },
  };
}
