// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.tools/**',
      '.data/**',
      'bench/results/**',
      'coverage/**',
      'sdk/python/.venv/**',
      'sdk/java/**/target/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O,
    // activities imported as types only.
    files: ['src/workflows/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Workflow code must be deterministic: no Node built-ins.' },
            {
              regex:
                '^(fs|path|os|crypto|http|https|net|child_process|worker_threads|timers|process|undici)$',
              message: 'No Node built-ins or I/O in workflow code.',
            },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/activities/**'],
              allowTypeImports: true,
              message: 'Import activities as types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Config files and test/bench entry points may default-export where their tools require it.
    files: ['*.config.ts', 'sdk/*/*.config.ts', 'test/global-setup.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Preloads given to `node --require` (the bench's profiling helpers) are CommonJS scripts.
    files: ['bench/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', process: 'readonly', setInterval: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
