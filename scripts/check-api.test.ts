import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiReports } from './check-api.ts';

describe('API report', () => {
  const fixture = mkdtempSync(path.join(tmpdir(), 'kubeloom-api-'));
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
  write('packages/a/package.json', pkg('@fx/a', { '.': './src/index.ts', './testing': './src/testing.ts' }));
  write(
    'packages/a/src/index.ts',
    [
      '/** doc comments are left out */',
      'export interface Options { readonly name?: string; /** a comment */ size: number }',
      "export type Mode = | 'a' /* inline */ | 'b';",
      'export function make(name: string): Options;',
      'export function make(options: Options): Options;',
      'export function make(x: string | Options): Options { return typeof x === "string" ? { size: 1 } : x; }',
      'export class Thing {',
      '  readonly #secret = 1;',
      '  private hidden = 2;',
      '  /** @internal */ internal(): void {}',
      '  constructor(id: string, options: Options = { size: 0 }) { void id; void options; }',
      '  get size(): number { return this.#secret + this.hidden; }',
      '  run(signal: AbortSignal): Promise<void> { void signal; return Promise.resolve(); }',
      '}',
      'export const LIMIT = 3;',
    ].join('\n'),
  );
  write('packages/a/src/testing.ts', 'export type { Options } from "./index.ts";\n');
  write('packages/b/package.json', pkg('@fx/b', { '.': './src/index.ts' }));
  write('packages/b/src/index.ts', "export { make } from '@fx/a';\n");
  mkdirSync(path.join(fixture, 'node_modules/@fx'), { recursive: true });
  symlinkSync(path.join(fixture, 'packages/a'), path.join(fixture, 'node_modules/@fx/a'), 'dir');

  it('renders each entry point: public members, every overload, types as written, re-exports marked', () => {
    const [a, b] = apiReports(fixture);
    expect(a?.pkg).toBe('@fx/a');
    expect(a?.file).toBe(path.join(fixture, 'packages/a/api-report.md'));
    expect(a?.text).toContain(
      [
        '## `@fx/a`',
        '',
        '```ts',
        'export const LIMIT: 3;',
        'export function make(name: string): Options;',
        'export function make(options: Options): Options;',
        "export type Mode = 'a' | 'b';",
        'export interface Options {',
        '  readonly name?: string;',
        '  size: number;',
        '}',
        'export class Thing {',
        '  constructor(id: string, options?: Options);',
        '  get size(): number;',
        '  run(signal: AbortSignal): Promise<void>;',
        '}',
        '```',
      ].join('\n'),
    );
    expect(a?.text).toContain('## `@fx/a/testing`\n\n```ts\nexport interface Options {');
    expect(b?.text).toContain(
      'export function make(name: string): Options;\nexport function make(options: Options): Options; // re-exported from packages/a',
    );
  });
});
