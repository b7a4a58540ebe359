// ESLint for the extension: the JupyterLab extension template's configuration (copier
// `extension-template`), with `any` an error and the unit tests (test/, through
// tsconfig.eslint.json) linted too. `@typescript-eslint/quotes` is left out: typescript-eslint 8
// removed it, and Prettier's singleQuote does its job.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import prettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import jupyterPlugin from '@jupyter/eslint-plugin';

export default defineConfig([
  {
    ignores: ['node_modules', 'lib', 'coverage', '**/*.js', '**/*.d.ts']
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: {
      jupyter: jupyterPlugin
    }
  },
  jupyterPlugin.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      globals: {
        ...globals.browser,
        ...globals.es2015,
        ...globals.node
      },
      parserOptions: {
        project: 'tsconfig.eslint.json',
        sourceType: 'module'
      }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: {
            regex: '^I[A-Z]',
            match: true
          }
        }
      ],
      '@typescript-eslint/no-unused-vars': [
        'warn',
        { args: 'none', ignoreRestSiblings: true }
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-use-before-define': 'off',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error',
      // Each plugin builds its service, sidebar or renderer factory in `activate()`, so what it
      // imports is needed at start-up anyway.
      'jupyter/prefer-lazy-imports': 'off'
    }
  },
  {
    // Test data: titles and labels as a server sends them, not strings a person reads in the UI.
    files: ['test/**/*.ts'],
    rules: {
      'jupyter/no-untranslated-string': 'off'
    }
  },
  prettierRecommended
]);
