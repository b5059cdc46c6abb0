/**
 * Shared Vitest settings for every package: the `@kubeloom/source` condition (sibling packages
 * are loaded from their TypeScript sources, no build needed), colocated tests and generous
 * timeouts for integration tests against the real control plane.
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
      testTimeout: 30_000,
      hookTimeout: 60_000,
      restoreMocks: true,
    },
  };
}
