// The type-aware lint layer beside biome: only the rules that need type information (which biome
// cannot see) plus the project's parameter limit. Biome stays the formatter and the main linter.
// Run with `pnpm lint:types`.
import tseslint from 'typescript-eslint';

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
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection: await it, return it, or `void` it with a
      // comment saying why fire-and-forget is right and where its errors go.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a sync one is expected (event emitters, forEach, conditions).
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union handles every member (or says `default`).
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      // Options objects, not long positional lists (README, "One API style").
      'max-params': ['error', 3],
    },
  },
);
