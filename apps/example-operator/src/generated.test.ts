/**
 * The generated CRDs, ClusterRole, typed clients and validators are committed; this fails when
 * they are stale (run `pnpm --filter @kubeloom/example-operator generate`).
 */

import { fileURLToPath } from 'node:url';
import { type CliIO, runCli } from '@kubeloom/codegen';
import { expect, it } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));

it.each([
  [
    'CRDs and ClusterRole',
    ['crd', 'src/api/**/*.ts', '--out', 'deploy/generated', '--role-name', 'kubeloom-egress-operator'],
  ],
  [
    'typed clients and validators',
    ['types', 'deploy/generated/egress.kubeloom.dev_*.yaml', '--out', 'src/generated'],
  ],
])('the committed %s are what codegen generates', (_what, args) => {
  const lines: string[] = [];
  const io: CliIO = { out: (l) => lines.push(l), err: (l) => lines.push(l), cwd };
  const code = runCli([...args, '--check'], io);
  expect(lines.join('\n'), 'run `pnpm --filter @kubeloom/example-operator generate`').not.toMatch(
    /stale|missing|differ/i,
  );
  expect(code).toBe(0);
});
