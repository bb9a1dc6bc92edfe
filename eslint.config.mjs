// typescript-eslint's type-checked recommendations over every workspace, as one program (tsconfig.eslint.json).
// Each rule switched off below says why; `npm test` fails on any report.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const unsafeAny = {
  '@typescript-eslint/no-explicit-any': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/output/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Async functions without await implement Promise-returning interfaces (repositories, fakes, handlers).
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests and the bench read HTTP answers and SQL rows as untyped JSON and assert on or print them.
    files: ['**/*.test.ts', '**/*.test.tsx', 'test/e2e/**/*.ts', 'scripts/bench/src/**/*.ts'],
    rules: unsafeAny,
  },
  {
    // The face and person models run on tfjs and face-api.js internals that ship no types for what is used here.
    files: [
      'ml-worker/src/faces/**/*.ts',
      'ml-worker/src/tfjs/**/*.ts',
      'ml-worker/src/bibs/person-detector.ts',
      'ml-worker/src/bibs/bib-reader.ts',
      'ml-worker/src/bibs/import-esm.ts',
    ],
    rules: unsafeAny,
  },
);
