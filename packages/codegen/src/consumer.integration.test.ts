// Generated code in an operator project outside the workspace: `@kubeloom/kube` and
// `@kubeloom/codegen-runtime` installed from their packed tarballs with npm (production install),
// the generated modules written with each import-extension choice and compiled or run under the
// compiler settings the README gives for it. Proves that the production install of generated code
// has no TypeScript compiler in it (issue 12 items 6 and 7).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packWorkspacePackages } from '@kubeloom/testing';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCrds } from './crd-reader.ts';
import { type ImportExtension, resourcesToTypeScript } from './ts-writer.ts';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const widgets = readFileSync(path.join(import.meta.dirname, 'testdata', 'crds', 'widgets.yaml'), 'utf8');

/** A valid widget and an invalid one (a closed enum), checked by the generated validator. */
const usage = (spec: string) => `import { type Widget, WidgetValidator } from '${spec}';
const good: Widget = { spec: { size: 3, color: 'red', port: 'http', tags: ['a'] } };
const bad = { spec: { size: 3, color: 'pink' } } as unknown as Widget;
const b = WidgetValidator.validate(bad);
console.log(JSON.stringify({ good: WidgetValidator.validate(good).valid, bad: b.valid, path: b.errors[0]?.path }));
`;

function generate(dir: string, importExtension: ImportExtension): void {
  for (const f of resourcesToTypeScript(readCrds(widgets, 'widgets.yaml'), {
    client: false,
    importExtension,
  })) {
    const p = path.join(dir, f.path);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
}

/** Compiles `files` with the consumer's settings; returns the diagnostics. */
function compile(files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    target: ts.ScriptTarget.ES2023,
    skipLibCheck: true,
    typeRoots: [path.join(root, 'node_modules', '@types')],
    types: ['node'],
    ...options,
  });
  const emitted = options.noEmit ? [] : program.emit().diagnostics;
  return [...ts.getPreEmitDiagnostics(program), ...emitted].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}

describe('generated code in a consumer project outside the workspace', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-consumer-'));
  const app = path.join(dir, 'operator');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    await packWorkspacePackages({
      root,
      packages: ['packages/kube', 'packages/codegen-runtime'],
      destination: dir,
    });
    const tarball = (prefix: string) => {
      const t = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.tgz'));
      if (!t) throw new Error(`no tarball ${prefix}*.tgz in ${dir}`);
      return `file:${path.join(dir, t)}`;
    };
    mkdirSync(app);
    const kube = JSON.parse(readFileSync(path.join(root, 'packages', 'kube', 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({
        name: 'operator',
        private: true,
        type: 'module',
        dependencies: {
          '@kubeloom/kube': tarball('kubeloom-kube-'),
          '@kubeloom/codegen-runtime': tarball('kubeloom-codegen-runtime-'),
          '@kubernetes/client-node': kube.peerDependencies['@kubernetes/client-node'],
        },
      }),
    );
    execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: app,
      stdio: 'inherit',
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
  }, 600_000);

  it('the production install has the runtime and no TypeScript compiler', () => {
    const installed = execFileSync('npm', ['ls', '--all', '--omit=dev', '--parseable'], {
      cwd: app,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l.includes('node_modules'))
      .map((l) => l.slice(l.lastIndexOf('node_modules') + 'node_modules/'.length));
    expect(installed).toContain('@kubeloom/codegen-runtime');
    expect(installed).toContain('ajv');
    expect(installed).not.toContain('typescript');
    expect(installed).not.toContain('@kubeloom/codegen');
  });

  it('.ts specifiers: plain Node runs the generated sources (type stripping)', () => {
    generate(path.join(app, 'gen-ts'), '.ts');
    writeFileSync(path.join(app, 'main-ts.ts'), usage('./gen-ts/test.kubeloom.dev/v1/index.ts'));
    const out = execFileSync(process.execPath, ['main-ts.ts'], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ good: true, bad: false, path: 'spec.color' });
  });

  it('.js specifiers: tsc with module nodenext emits JavaScript that Node runs', () => {
    generate(path.join(app, 'gen-js'), '.js');
    const main = path.join(app, 'main-js.ts');
    writeFileSync(main, usage('./gen-js/test.kubeloom.dev/v1/index.js'));
    const diagnostics = compile([main], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      rootDir: app,
      outDir: path.join(app, 'out-js'),
    });
    expect(diagnostics).toEqual([]);
    const out = execFileSync(process.execPath, ['out-js/main-js.js'], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ good: true, bad: false, path: 'spec.color' });
    // The same output under nodenext without rewriting: `.ts` specifiers are an error there.
    generate(path.join(app, 'gen-wrong'), '.ts');
    const wrong = path.join(app, 'main-wrong.ts');
    writeFileSync(wrong, usage('./gen-wrong/test.kubeloom.dev/v1/index.js'));
    const errors = compile([wrong], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
    });
    expect(errors.join('\n')).toMatch(/allowImportingTsExtensions|Cannot find module/);
  });

  it('extensionless specifiers: type-check under moduleResolution bundler, rejected by nodenext', () => {
    generate(path.join(app, 'gen-bundler'), '');
    const main = path.join(app, 'main-bundler.ts');
    writeFileSync(main, usage('./gen-bundler/test.kubeloom.dev/v1/index'));
    const bundler = {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
    };
    expect(compile([main], bundler)).toEqual([]);
    const nodenext = compile([main], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
    });
    expect(nodenext.join('\n')).toMatch(/explicit file extensions/);
  });
});
