/**
 * The package stack as a picture for the docs site's landing page (`docs/stack.svg`), drawn from
 * `scripts/layers.ts` — the same source of truth `pnpm check:boundaries` enforces — so the
 * picture cannot drift from the rules.
 *
 *   node scripts/docs-stack.ts            fails when docs/stack.svg differs from the layers
 *   node scripts/docs-stack.ts --update   rewrites docs/stack.svg
 *
 * (`scripts/docs-stack.test.ts` runs the check in `pnpm test`.) Each package is a box at its
 * place in PLACES; an arrow joins a package to each package it imports directly, leaving out
 * imports already implied through another package.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LAYERS, type Layer } from './layers.ts';

const BOX_W = 290;
const BOX_H = 64;
const GAP_X = 36;
const GAP_Y = 44;
const MARGIN = 24;

/** One line of a package's description: its first clause, cut at a word boundary. */
function summary(description: string): string {
  const first = description.split(/[:.(]/)[0]?.trim() ?? description;
  if (first.length <= 44) return first;
  return `${first.slice(0, first.lastIndexOf(' ', 42)).replace(/,$/, '')}…`;
}

function escapeXml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * Where each package sits: [column, row], row 0 at the foot. The runtime stack is the middle
 * column; codegen beside it; testing, which every package's tests use, on the left, drawn
 * without lines (the arrows are production imports).
 */
const PLACES: Readonly<Record<string, readonly [number, number]>> = {
  '@kubeloom/testing': [0, 0],
  '@kubeloom/kube': [1, 0],
  '@kubeloom/controllers': [1, 1],
  '@kubeloom/kclient': [1, 2],
  '@kubeloom/krt': [1, 3],
  '@kubeloom/example-operator': [1, 4],
  '@kubeloom/codegen-runtime': [2, 3],
  '@kubeloom/codegen': [2, 4],
};

/** The SVG for `layers`; `describe` gives each package's description (its package.json's). */
export function stackSvg(layers: readonly Layer[], describe: (layer: Layer) => string): string {
  const byName = new Map(layers.map((l) => [l.name, l]));
  const unplaced = layers.filter((l) => !PLACES[l.name]).map((l) => l.name);
  if (unplaced.length > 0) {
    throw new Error(
      `scripts/docs-stack.ts: no place in the picture for ${unplaced.join(', ')}: add it to PLACES`,
    );
  }
  const leaf = '@kubeloom/testing';
  // Direct imports not implied through another allowed package (a transitive reduction).
  const reaches = (from: string, to: string): boolean =>
    (byName.get(from)?.allow ?? []).some((a) => a === to || reaches(a, to));
  const edges = layers.flatMap((l) =>
    l.allow
      .filter((a) => a !== leaf && !l.allow.some((b) => b !== a && reaches(b, a)))
      .map((a) => [l.name, a] as const),
  );
  const columns = 1 + Math.max(...layers.map((l) => PLACES[l.name]![0]));
  const rows = 1 + Math.max(...layers.map((l) => PLACES[l.name]![1]));
  const width = MARGIN * 2 + columns * BOX_W + (columns - 1) * GAP_X;
  const height = MARGIN * 2 + rows * BOX_H + (rows - 1) * GAP_Y;
  const pos = (name: string) => {
    const [col, row] = PLACES[name]!;
    return { x: MARGIN + col * (BOX_W + GAP_X), y: MARGIN + (rows - 1 - row) * (BOX_H + GAP_Y) };
  };
  const lines = edges.map(([from, to]) => {
    const a = pos(from);
    const b = pos(to);
    return `  <line x1="${a.x + BOX_W / 2}" y1="${a.y + BOX_H}" x2="${b.x + BOX_W / 2}" y2="${b.y}" class="edge" marker-end="url(#arrow)"/>`;
  });
  const boxes = layers.map((l) => {
    const { x, y } = pos(l.name);
    const kind = l.dir.startsWith('apps/') ? 'app' : l.name === leaf ? 'leaf' : 'pkg';
    const what = l.name === leaf ? 'Real control plane for every package’s tests' : summary(describe(l));
    return [
      `  <g class="${kind}">`,
      `    <title>${escapeXml(`${l.name}: ${describe(l)}`)}</title>`,
      `    <rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="8"/>`,
      `    <text x="${x + BOX_W / 2}" y="${y + 27}" class="name">${escapeXml(l.name)}</text>`,
      `    <text x="${x + BOX_W / 2}" y="${y + 48}" class="what">${escapeXml(what)}</text>`,
      '  </g>',
    ].join('\n');
  });
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="stack-title">`,
    '  <title id="stack-title">The kubeloom package stack: an arrow points to a package imported in production code; every package uses @kubeloom/testing in its tests</title>',
    '  <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker></defs>',
    '  <style>',
    '    rect { stroke-width: 1.5; }',
    '    .pkg rect { fill: #e0ecff; stroke: #3563c9; }',
    '    .leaf rect { fill: #e8f5e9; stroke: #2e7d32; }',
    '    .app rect { fill: #fff4e0; stroke: #c77700; }',
    '    text { font-family: system-ui, sans-serif; text-anchor: middle; fill: #1f2937; }',
    '    .name { font-size: 16px; font-weight: 600; }',
    '    .what { font-size: 12px; fill: #4b5563; }',
    '    .edge { stroke: #6b7280; stroke-width: 1.5; }',
    '  </style>',
    ...lines,
    ...boxes,
    '</svg>',
  ].join('\n')}\n`;
}

/** The picture as the repository's layers and package.json descriptions draw it. */
export function currentStackSvg(root: string): string {
  return stackSvg(LAYERS, (l) => {
    const pkg = JSON.parse(readFileSync(path.join(root, l.dir, 'package.json'), 'utf8')) as {
      description?: string;
    };
    return pkg.description ?? '';
  });
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const file = path.join(root, 'docs', 'stack.svg');
  const svg = currentStackSvg(root);
  if (process.argv.includes('--update')) {
    writeFileSync(file, svg);
  } else if (readFileSync(file, 'utf8') !== svg) {
    console.error('docs/stack.svg differs from scripts/layers.ts: run `node scripts/docs-stack.ts --update`');
    process.exitCode = 1;
  }
}
