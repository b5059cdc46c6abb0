import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every module reachable from `entry` by relative imports, with the packages each imports. */
function importGraph(entry: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (out.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm),
      ...text.matchAll(/\bimport\s*\(\s*'([^']+)'\s*\)/g),
    ].map((m) => m[1]!);
    out.set(
      file,
      specifiers.filter((s) => !s.startsWith('.')),
    );
    for (const s of specifiers) if (s.startsWith('.')) pending.push(path.resolve(path.dirname(file), s));
  }
  return out;
}

describe('@kubeloom/codegen-runtime', () => {
  it('declares no dependency on the compiler: only Ajv and RE2', () => {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    expect(Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })).toEqual(['ajv', 're2js']);
  });

  it('never loads the TypeScript compiler or the generators: only Node builtins, Ajv and RE2', () => {
    const graph = importGraph(path.join(import.meta.dirname, 'index.ts'));
    expect(graph.size).toBeGreaterThan(5);
    const packages = new Set([...graph.values()].flat());
    expect([...packages].filter((p) => !p.startsWith('node:')).sort()).toEqual(['ajv', 're2js']);
    expect([...graph.keys()].map((f) => path.basename(f))).not.toContain('ts-reader.ts');
  });
});
