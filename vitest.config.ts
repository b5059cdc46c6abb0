import { defineConfig } from 'vitest/config';

// One run for the whole repository: every package is a project, and one real control plane
// (etcd + kube-apiserver) is shared by all integration tests of the run.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'scripts'],
    globalSetup: ['./packages/testing/src/vitest-setup.ts'],
    teardownTimeout: 60_000,
  },
});
