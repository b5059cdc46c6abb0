import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkExamples, includeProblems } from './check-examples.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('API doc examples check', () => {
  it('passes on the repository: every constructor and primitive includes a tested example, none is pasted', () => {
    const { entries, problems } = checkExamples(root);
    expect(problems).toEqual([]);
    const needing = entries.filter((e) => e.needsExample).map((e) => e.name);
    // constructors of every package and the primitives of krt, controllers and kclient
    expect(needing).toEqual(
      expect.arrayContaining([
        'createKubeClient',
        'createApiClient',
        'startControlPlane',
        'createCollectionTracker',
        'mapCollection',
        'createQueue',
        'hashRing',
        'retryOnConflict',
        'toPatcher',
        'shutdownAll',
      ]),
    );
    expect(needing.length).toBeGreaterThan(80);
  });

  describe('on a planted package', () => {
    const fixture = mkdtempSync(path.join(tmpdir(), 'kubeloom-examples-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));
    const write = (file: string, text: string): void => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };
    write(
      'packages/p/package.json',
      JSON.stringify({
        name: '@fx/p',
        type: 'module',
        exports: { '.': { '@kubeloom/source': './src/index.ts' } },
      }),
    );
    write(
      'packages/p/src/examples.test.ts',
      '// #region good\nconst x = 1;\n// #endregion good\n// #region open\nconst y = 2;\n',
    );
    write('packages/p/src/notes.md', '// #region good\n// #endregion good\n');
    write(
      'packages/p/src/index.ts',
      [
        '/**\n * Included.\n *\n * @example\n * {@includeCode ./examples.test.ts#good}\n */\nexport function createGood(): void {}',
        '/** Included in the text: {@includeCode ./examples.test.ts#good} */\nexport function startInText(): void {}',
        '/** No example. */\nexport function createBare(): void {}',
        '/**\n * Pasted.\n *\n * @example\n * ```ts\n * pasted();\n * ```\n */\nexport function pasted(): void {}',
        '/**\n * A missing region.\n *\n * @example\n * {@includeCode ./examples.test.ts#gone}\n */\nexport function createGone(): void {}',
        '/**\n * An unclosed region.\n *\n * @example\n * {@includeCode ./examples.test.ts#open}\n */\nexport function createOpen(): void {}',
        '/**\n * Not a test.\n *\n * @example\n * {@includeCode ./notes.md#good}\n */\nexport function createUntested(): void {}',
        '/** A primitive without example. */\nexport function primitive(): void {}',
        '/** A type needs none. */\nexport interface Options { readonly a?: number }',
      ].join('\n'),
    );

    it('names each constructor without an example, each pasted example and each include that does not resolve', () => {
      const { problems } = checkExamples(fixture, new Set());
      const p = (s: string) => `@fx/p ${s}`;
      expect(problems.map((m) => m.replace(/ \(packages\/p\/src\/index\.ts\)/, ''))).toEqual([
        p(
          'createBare: no example; add a `// #region createBare` to a test beside it and `@example` + {@includeCode ./<file>.test.ts#createBare} to its doc comment',
        ),
        p(
          'pasted: 1 pasted @example(s); move the code into a test and include it with {@includeCode ./<file>.test.ts#<region>}',
        ),
        p(
          'createGone: includes ./examples.test.ts#gone: ./examples.test.ts has no `// #region gone` … `// #endregion gone`',
        ),
        p(
          'createOpen: includes ./examples.test.ts#open: ./examples.test.ts has no `// #region open` … `// #endregion open`',
        ),
        p(
          'createUntested: includes ./notes.md#good: examples come from a *.test.ts file, which `pnpm test` runs',
        ),
      ]);
    });

    it('treats every function of a primitive entry point as needing an example', () => {
      const { problems } = checkExamples(fixture, new Set(['@fx/p']));
      expect(problems.filter((m) => m.includes('no example'))).toEqual([
        expect.stringMatching(/^@fx\/p createBare /),
        expect.stringMatching(/^@fx\/p pasted /),
        expect.stringMatching(/^@fx\/p primitive /),
      ]);
    });

    it('resolves include paths relative to the source file', () => {
      expect(
        includeProblems(path.join(fixture, 'packages/p/src/index.ts'), './examples.test.ts#good'),
      ).toEqual([]);
      expect(includeProblems(path.join(fixture, 'packages/p/index.ts'), './examples.test.ts#good')).toEqual([
        'includes ./examples.test.ts#good: ./examples.test.ts does not exist',
      ]);
    });
  });
});
