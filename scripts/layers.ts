/**
 * The one source of truth for the package stack (DESIGN §1). A package may import only the
 * packages listed in its `allow` set; `@kubeloom/testing` is a leaf that every package may use in
 * tests. `scripts/check-boundaries.ts` enforces it and compares it with turbo.json's tags.
 */
export interface Layer {
  /** Folder relative to the repository root. */
  readonly dir: string;
  /** npm name. */
  readonly name: string;
  /** Packages it may import in production code. */
  readonly allow: readonly string[];
  /** Packages it may import only from tests (devDependencies). */
  readonly allowInTests: readonly string[];
}

const T = '@kubeloom/testing';
export const LAYERS: readonly Layer[] = [
  { dir: 'packages/testing', name: T, allow: [], allowInTests: [] },
  { dir: 'packages/kube', name: '@kubeloom/kube', allow: [], allowInTests: [T] },
  {
    dir: 'packages/controllers',
    name: '@kubeloom/controllers',
    allow: ['@kubeloom/kube'],
    allowInTests: [T],
  },
  {
    dir: 'packages/kclient',
    name: '@kubeloom/kclient',
    allow: ['@kubeloom/kube', '@kubeloom/controllers'],
    allowInTests: [T],
  },
  {
    dir: 'packages/krt',
    name: '@kubeloom/krt',
    allow: ['@kubeloom/kube', '@kubeloom/controllers', '@kubeloom/kclient'],
    allowInTests: [T],
  },
  // What generated code needs at run time (validators, CEL, RE2): a leaf beside the stack, so an
  // operator's production install has no compiler.
  { dir: 'packages/codegen-runtime', name: '@kubeloom/codegen-runtime', allow: [], allowInTests: [] },
  // codegen emits code that imports kclient/kube and codegen-runtime but has no runtime dependency
  // on the stack; its tests may compile generated code against kube and kclient.
  {
    dir: 'packages/codegen',
    name: '@kubeloom/codegen',
    allow: ['@kubeloom/codegen-runtime'],
    allowInTests: [T, '@kubeloom/kube', '@kubeloom/controllers', '@kubeloom/kclient'],
  },
  // The operator's generated clients import the codegen runtime; its tests check with codegen
  // that the generated files are fresh; its demo (scripts/) starts a control plane.
  {
    dir: 'apps/example-operator',
    name: '@kubeloom/example-operator',
    allow: [
      T,
      '@kubeloom/kube',
      '@kubeloom/controllers',
      '@kubeloom/kclient',
      '@kubeloom/krt',
      '@kubeloom/codegen-runtime',
    ],
    allowInTests: ['@kubeloom/codegen'],
  },
];
