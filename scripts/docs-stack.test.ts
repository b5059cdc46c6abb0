import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentStackSvg, stackSvg } from './docs-stack.ts';
import { LAYERS } from './layers.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('docs/stack.svg, the package stack on the docs landing page', () => {
  it('is what scripts/layers.ts draws (`node scripts/docs-stack.ts --update` rewrites it)', () => {
    expect(readFileSync(path.join(root, 'docs', 'stack.svg'), 'utf8')).toBe(currentStackSvg(root));
  });

  it('has a box per package and an arrow per direct production import', () => {
    const svg = currentStackSvg(root);
    for (const l of LAYERS) expect(svg).toContain(`>${l.name}</text>`);
    // krt → kclient → controllers → kube, and not krt → kube (implied through kclient)
    expect((svg.match(/<line /g) ?? []).length).toBe(6);
  });

  it('refuses a package it has no place for, naming it', () => {
    expect(() =>
      stackSvg(
        [...LAYERS, { dir: 'packages/new', name: '@kubeloom/new', allow: [], allowInTests: [] }],
        () => '',
      ),
    ).toThrow(/@kubeloom\/new: add it to PLACES/);
  });
});
