// Lint rules of the house (CONTRIBUTING.md "Lint and format"): typescript-eslint's type-aware checks for
// promises nobody awaits, unsafe casts and unused code, on every TypeScript package and the pages.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Built output, generated API types and plain JavaScript (bench/, build scripts) are not linted.
  { ignores: ['**/dist/**', '**/node_modules/**', 'web/src/generated/**', 'bench/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Part of recommendedTypeChecked already; spelled out because they are the reason this config exists.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A leading underscore marks a parameter or binding left unused on purpose (an interface's signature, a
      // destructured field left out of the rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // What a command loads (libs/common src/core.ts): these import `@pi/common/core`, never the index that
    // brings the HTTP kit with Express, prom-client and jsonwebtoken. test/e2e/start-up.test.ts checks a run.
    files: ['libs/db/src/**/*.ts', 'libs/notify/src/**/*.ts', 'services/monitor/src/check-rules/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@pi/common', message: "Import '@pi/common/core': commands load no HTTP server.", allowTypeImports: true }] },
      ],
    },
  },
  {
    // Tests read HTTP answers as JSON (typed any) and check them against the presenters' closed schemas and
    // expected values: the no-unsafe-* family and no-explicit-any would only ask for casts there. chai's
    // property assertions (`expect(x).to.be.a('string').and.not.empty`) are expressions by design. Every other
    // rule holds in tests too.
    files: ['**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
