import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryPoints, findCollisions } from './check-exports.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('export collision check', () => {
  it('passes on the repository as it is: no two packages export one name with two meanings', () => {
    expect(entryPoints(root).map((e) => e.specifier)).toEqual(
      expect.arrayContaining([
        '@kubeloom/kube',
        '@kubeloom/kube/fake',
        '@kubeloom/controllers',
        '@kubeloom/kclient',
        '@kubeloom/kclient/testing',
        '@kubeloom/krt',
        '@kubeloom/krt/testing',
        '@kubeloom/testing',
      ]),
    );
    expect(findCollisions(root)).toEqual([]);
  });

  describe('on planted packages', () => {
    const fixture = mkdtempSync(path.join(tmpdir(), 'kubeloom-exports-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));
    const write = (file: string, text: string): void => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };
    const pkg = (name: string, exports: Record<string, string>): string =>
      JSON.stringify({
        name,
        type: 'module',
        exports: Object.fromEntries(
          Object.entries(exports).map(([k, v]) => [k, { '@kubeloom/source': v, default: v }]),
        ),
      });
    write(
      'packages/a/package.json',
      pkg('@fx/a', { '.': './src/index.ts', './testing': './src/testing.ts' }),
    );
    write(
      'packages/a/src/index.ts',
      'export interface Informer { run(): void }\nexport type EventType = "Normal";\nexport const shared = 1;\n',
    );
    write('packages/a/src/testing.ts', 'export class EventTracker { record(): void {} }\n');
    write(
      'packages/b/package.json',
      pkg('@fx/b', { '.': './src/index.ts', './testing': './src/testing.ts' }),
    );
    write(
      'packages/b/src/index.ts',
      "export { shared } from '@fx/a';\nexport type EventType = 'add' | 'delete';\nexport function Informer(): void {}\n",
    );
    write('packages/b/src/testing.ts', 'export class EventTracker { wait(): void {} }\n');
    mkdirSync(path.join(fixture, 'node_modules/@fx'), { recursive: true });
    symlinkSync(path.join(fixture, 'packages/a'), path.join(fixture, 'node_modules/@fx/a'), 'dir');

    it('lists every name two packages declare separately, whatever the entry point or kind', () => {
      expect(findCollisions(fixture)).toEqual([
        {
          name: 'EventTracker',
          exportedBy: [
            { specifier: '@fx/a/testing', declaredIn: 'packages/a/src/testing.ts' },
            { specifier: '@fx/b/testing', declaredIn: 'packages/b/src/testing.ts' },
          ],
        },
        {
          name: 'EventType',
          exportedBy: [
            { specifier: '@fx/a', declaredIn: 'packages/a/src/index.ts' },
            { specifier: '@fx/b', declaredIn: 'packages/b/src/index.ts' },
          ],
        },
        {
          name: 'Informer',
          exportedBy: [
            { specifier: '@fx/a', declaredIn: 'packages/a/src/index.ts' },
            { specifier: '@fx/b', declaredIn: 'packages/b/src/index.ts' },
          ],
        },
      ]);
    });

    it('accepts a re-export of the same symbol and the names of the allow-list', () => {
      const names = (allowed: ReadonlySet<string>) => findCollisions(fixture, allowed).map((c) => c.name);
      expect(names(new Set())).not.toContain('shared');
      expect(names(new Set(['EventType']))).toEqual(['EventTracker', 'Informer']);
    });
  });
});
