// ESLint (flat config): the recommended JavaScript and typescript-eslint rules over every
// TypeScript file of the project; formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/peers/node_modules/**', 'bench/peers/dist/**', 'data/**', '.bench-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // A generator function made per call gets a prototype and object shape of its own every
    // time: in a per-request path that cost 13 µs and most of a point read's garbage
    // collection (docs/benchmarks.md). Generators are declared once, at module level.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: ':not(MethodDefinition) > FunctionExpression[generator=true]',
          message: 'declare the generator once at module level: a generator function expression is a new prototype per call',
        },
        {
          selector: ':function FunctionDeclaration[generator=true]',
          message: 'declare the generator once at module level: a nested generator function is a new prototype per call',
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Tests read parsed JSON answers whose shape each assertion states.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
