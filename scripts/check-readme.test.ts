import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkReadme, extractRegion, readmes } from './check-readme.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('README snippet check', () => {
  it('passes on the repository as it is: every snippet equals its region', () => {
    const problems = readmes(root).flatMap((readme) => checkReadme(readme, root).problems);
    expect(problems).toEqual([]);
    expect(readmes(root).map((r) => path.relative(root, r))).toEqual(
      expect.arrayContaining([
        'packages/kube/README.md',
        'packages/kclient/README.md',
        'packages/krt/README.md',
        'packages/controllers/README.md',
      ]),
    );
  });

  it('extracts a region dedented, without nested markers, and nothing for a missing one', () => {
    const text = [
      'x();',
      '  // #region a',
      '  if (y) {',
      '    // #region inner',
      '    z();',
      '    // #endregion inner',
      '  }',
      '  // #endregion a',
    ].join('\n');
    expect(extractRegion(text, 'a')).toBe('if (y) {\n  z();\n}');
    expect(extractRegion(text, 'inner')).toBe('z();');
    expect(extractRegion(text, 'b')).toBeUndefined();
  });

  describe('on a planted README', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-readme-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(
      path.join(dir, 'src', 'example.test.ts'),
      '// #region hello\nhello();\n// #endregion hello\n',
    );
    const readme = (snippet: string): string => {
      const file = path.join(dir, 'README.md');
      writeFileSync(file, `# x\n\n<!-- snippet: ${snippet} -->\n\`\`\`ts\nhello();\n\`\`\`\n`);
      return file;
    };

    it('accepts a snippet equal to its region', () => {
      expect(checkReadme(readme('src/example.test.ts#hello'), dir).problems).toEqual([]);
    });

    it('names a snippet that differs, and update rewrites it', () => {
      writeFileSync(
        path.join(dir, 'src', 'example.test.ts'),
        '// #region hello\nhello(1);\n// #endregion hello\n',
      );
      const { problems, updated } = checkReadme(readme('src/example.test.ts#hello'), dir);
      expect(problems).toEqual([
        {
          readme: 'README.md',
          source: 'src/example.test.ts#hello',
          problem: 'the snippet differs from the region',
        },
      ]);
      expect(updated).toContain('```ts\nhello(1);\n```');
    });

    it('names a missing file or region', () => {
      expect(checkReadme(readme('src/nope.ts#hello'), dir).problems[0]?.problem).toBe(
        'src/nope.ts does not exist',
      );
      expect(checkReadme(readme('src/example.test.ts#bye'), dir).problems[0]?.problem).toMatch(
        /has no region "bye"/,
      );
    });
  });
});
