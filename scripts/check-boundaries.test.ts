import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDeclared, checkImports } from './check-boundaries.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('boundary check', () => {
  it('passes on the repository as it is', async () => {
    expect(checkDeclared(root)).toEqual([]);
    expect(await checkImports(root)).toEqual([]);
  });

  it('catches the planted upward and undeclared imports in packages/kube/src/testdata', async () => {
    const violations = await checkImports(root, true);
    const fromFixtures = violations.filter((v) => v.from.includes('/testdata/'));
    expect(fromFixtures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          rule: 'layer:kube',
          from: 'packages/kube/src/testdata/boundaries/upward-import.ts',
          to: 'packages/krt/src/index.ts',
        }),
        expect.objectContaining({
          rule: 'no-dev-dependency-in-production',
          from: 'packages/kube/src/testdata/boundaries/dev-dependency-import.ts',
          to: expect.stringContaining('vitest'),
        }),
        expect.objectContaining({
          rule: 'no-unresolvable',
          from: 'packages/kube/src/testdata/boundaries/undeclared-import.ts',
          to: '@kubeloom/kclient',
        }),
      ]),
    );
  });

  it('catches a declared dependency that goes up the stack', () => {
    const violations = checkDeclared(root, {
      '@kubeloom/controllers': {
        name: '@kubeloom/controllers',
        dependencies: { '@kubeloom/kube': 'workspace:^', '@kubeloom/krt': 'workspace:^' },
      },
      '@kubeloom/testing': {
        name: '@kubeloom/testing',
        devDependencies: { '@kubeloom/kube': 'workspace:^' },
      },
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        { rule: 'declared-dependency-up-the-stack', from: '@kubeloom/controllers', to: '@kubeloom/krt' },
        { rule: 'declared-dev-dependency-not-allowed', from: '@kubeloom/testing', to: '@kubeloom/kube' },
      ]),
    );
  });
});
