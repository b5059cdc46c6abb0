/**
 * README snippets come from compiled, tested code (issue 11 item 10). A README marks a snippet with
 * the file and region it comes from, on the line before its code fence:
 *
 *   <!-- snippet: src/example.test.ts#informer -->
 *   ```ts
 *   …the region's lines, dedented…
 *   ```
 *
 * and the file marks the region with `// #region informer` … `// #endregion informer` (the syntax
 * typedoc's `{@includeCode file#region}` reads, so API docs can pull the same regions). Marker
 * lines of nested regions are left out of the snippet.
 *
 *   node scripts/check-readme.ts            fails, naming README and region, when a snippet differs
 *   node scripts/check-readme.ts --update   copies every region into its README
 *
 * (`pnpm check:readme`, run by `.ci/run`; `scripts/check-readme.test.ts` runs it in `pnpm test`.)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A README snippet that does not match its region, or whose region is missing. */
export interface SnippetProblem {
  /** The README, relative to the repository root. */
  readonly readme: string;
  /** `file#region`, as written in the marker. */
  readonly source: string;
  /** What is wrong. */
  readonly problem: string;
}

const MARKER = /<!-- snippet: (\S+?)#([\w-]+) -->\n```(\w*)\n([\s\S]*?)^```$/gm;

/** The lines of region `name` in `text`, dedented, nested region markers left out. */
export function extractRegion(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*// #region ${name}\\s*$`).test(l));
  if (start < 0) return undefined;
  const end = lines.findIndex(
    (l, i) => i > start && new RegExp(`^\\s*// #endregion( ${name})?\\s*$`).test(l),
  );
  if (end < 0) return undefined;
  const body = lines.slice(start + 1, end).filter((l) => !/^\s*\/\/ #(end)?region\b/.test(l));
  const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return body.map((l) => l.slice(Number.isFinite(indent) ? indent : 0).trimEnd()).join('\n');
}

/** The READMEs of the packages and apps under `root`. */
export function readmes(root: string): string[] {
  return ['packages', 'apps']
    .flatMap((group) => {
      const dir = path.join(root, group);
      return existsSync(dir) ? readdirSync(dir).map((d) => path.join(dir, d, 'README.md')) : [];
    })
    .filter((f) => existsSync(f));
}

/**
 * Checks (or, with `update`, rewrites) every snippet of `readme`. Returns the problems left and the
 * README's text with every snippet taken from its region.
 */
export function checkReadme(readme: string, root: string): { problems: SnippetProblem[]; updated: string } {
  const text = readFileSync(readme, 'utf8');
  const problems: SnippetProblem[] = [];
  const rel = path.relative(root, readme);
  const updated = text.replace(MARKER, (whole: string, ...groups: string[]) => {
    const [file, region, lang, body] = groups as [string, string, string, string];
    const source = `${file}#${region}`;
    const sourceFile = path.resolve(path.dirname(readme), file);
    if (!existsSync(sourceFile)) {
      problems.push({ readme: rel, source, problem: `${file} does not exist` });
      return whole;
    }
    const code = extractRegion(readFileSync(sourceFile, 'utf8'), region);
    if (code === undefined) {
      problems.push({
        readme: rel,
        source,
        problem: `${file} has no region "${region}" (// #region ${region} … // #endregion ${region})`,
      });
      return whole;
    }
    if (`${code}\n` !== body) {
      problems.push({ readme: rel, source, problem: 'the snippet differs from the region' });
    }
    return `<!-- snippet: ${source} -->\n\`\`\`${lang}\n${code}\n\`\`\``;
  });
  return { problems, updated };
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const update = process.argv.includes('--update');
  let failed = 0;
  let snippets = 0;
  for (const readme of readmes(root)) {
    const { problems, updated } = checkReadme(readme, root);
    snippets += [...readFileSync(readme, 'utf8').matchAll(MARKER)].length;
    const differs = problems.filter((p) => p.problem === 'the snippet differs from the region');
    if (update && differs.length > 0) {
      writeFileSync(readme, updated);
      console.error(`updated ${differs.length} snippet(s) in ${path.relative(root, readme)}`);
    }
    for (const p of update ? problems.filter((x) => !differs.includes(x)) : problems) {
      console.error(`${p.readme}: ${p.source}: ${p.problem}`);
      failed++;
    }
  }
  if (failed > 0) {
    if (!update) console.error('run `pnpm check:readme --update` to copy the regions into the READMEs');
    process.exit(1);
  }
  console.error(`${snippets} README snippet(s) match their regions`);
}
