// The type-aware lint layer beside biome (`pnpm lint:types`): only rules that need type
// information, which biome does not have, plus the project's parameter limit. Biome stays the
// formatter and the main linter.
import tseslint from 'typescript-eslint';

/** Repository scripts and vitest configs belong to no package: tsconfig.tools.json types them. */
const TOOLS = [
  'scripts/**/*.ts',
  'configs/*.ts',
  '*.config.ts',
  'packages/*/vitest.config.ts',
  'apps/*/vitest.config.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/docs-site/**',
      '**/coverage/**',
      '**/testdata/**',
      '**/generated/**',
      '**/*.generated.ts',
      '**/.test-output/**',
      '**/*.js',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection: await it, return it, or `void` it with a
      // comment saying why fire-and-forget is right and where its errors go.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a sync callback is expected (emitters, forEach, conditions).
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union handles every member, or says what `default` does.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      // Options objects, not long positional lists (README, "One API style").
      'max-params': ['error', 3],
    },
  },
  {
    // Code that runs from source (`--conditions=@kubeloom/source`: the operator, its scripts, the
    // packages it imports) must parse on Node 22.19, which the engines allow and which has no
    // `using` declarations; tsc lowers them in dist, but nothing lowers them from source. Tests
    // run under vitest's transform and may use them.
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'apps/*/scripts/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "VariableDeclaration[kind='await using'], VariableDeclaration[kind='using']",
          message:
            'Node 22.19 cannot parse `using` declarations in source that runs unbuilt; use try/finally with [Symbol.asyncDispose]().',
        },
      ],
    },
  },
  {
    files: TOOLS,
    languageOptions: {
      parserOptions: { projectService: false, project: ['./tsconfig.tools.json'] },
    },
  },
);
