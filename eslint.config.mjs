// ESLint for the whole tree: typescript-eslint's recommended type-aware rules on the TypeScript (src, test),
// with floating promises and type-only imports checked; the plain JavaScript (scripts, bench, engines, hooks'
// helpers) gets the recommended rules without types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'dist-fakes/',
      'engines/*/node_modules/',
      'test/fixtures/',
      'schema/',
      'bench/results/',
    ],
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    // Nest reads constructor parameter types at run time (emitDecoratorMetadata): with these set, the type-import
    // rule leaves files with decorators alone instead of turning an injected class into a type-only import.
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // `typeof import('./x')` types a lazy require (below), so type annotations with import() stay allowed.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      // Values the gateway did not type (an engine's fields, a transcript's, a JSON-RPC id) are written into
      // messages with String() on purpose: an object shows as "[object Object]", never its contents.
      '@typescript-eslint/no-base-to-string': 'off',
      // A `let` a closure reads before its one assignment (a server that refers to itself) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A rest sibling leaves out what it names on purpose: `const { token: _token, ...shown } = settings`.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
      // An async method without an await still turns a throw into a rejection, which the interfaces we implement
      // (nest-commander's CommandRunner.run, the MCP SDK's Transport.start/close, Provider.health) rely on.
      '@typescript-eslint/require-await': 'off',
      // `require('./x') as typeof import('./x')` is how a command loads what only it needs, synchronously, so
      // that every other command's start does not pay for it (src/main.ts, serve-http, the proxy tunnel).
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Tests read untyped JSON off the wire (tool results, engine bodies) and hand jest's matchers methods: the
    // type-safety rules meant for the product would only add casts there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Hostile-input tests throw and reject with values that are not Errors, and type what they send loosely.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // The test project is checked by tsc with its own settings, which need casts this rule calls unnecessary.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
);
