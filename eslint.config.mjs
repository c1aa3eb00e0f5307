import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

/**
 * Libraries through their public APIs only: these forms reach a dependency's private members or
 * patch its methods, which a minor release (every dependency is on a caret range) can break
 * silently. test/unit/private-access-guard.test.ts checks that each one is caught.
 */
const PRIVATE_ACCESS = [
  {
    selector: 'MemberExpression[computed=false][property.name=/^_/]',
    message: 'An underscore member is private to its library: use its public API.',
  },
  {
    selector: "MemberExpression[property.name='isResolved']",
    message:
      "ioredis's Command.isResolved is private: use the command's promise and the client's public options (commandTimeout).",
  },
  {
    selector:
      "MemberExpression[object.property.name='connection'][property.name='stream'], MemberExpression[property.name='stream'][object.type='TSAsExpression']",
    message: "A client's socket (pg's connection.stream, ioredis's stream) is private: use the library's public API.",
  },
  {
    selector: "CallExpression[callee.property.name='registerMetric']",
    message:
      "Define metrics with prom-client's own Counter/Histogram/Gauge and `registers:` (src/observability/metrics.ts).",
  },
  {
    selector:
      "AssignmentExpression[left.type='MemberExpression'][left.object.type!='ThisExpression'][left.property.name=/^(handle|sendCommand|write|emit|_.*)$/]",
    message:
      "Replacing a library object's method (app.handle, sendCommand, ...) patches its internals: use its public API or a middleware.",
  },
  {
    selector:
      "TSAsExpression[typeAnnotation.type='TSTypeLiteral'][expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
    message: '`x as unknown as { ... }` reaches members a library does not declare: use its public API.',
  },
];

/**
 * Log the error itself (`logger.warn('...', { err })`): the logger writes its message, stack and
 * code (src/observability/logger.ts). A field holding only `err.message` loses the stack.
 */
const LOGGED_ERRORS = [
  {
    selector:
      "CallExpression[callee.property.name=/^(error|warn|info|debug)$/] > ObjectExpression.arguments > Property[key.name=/^(err|error)$/] > MemberExpression.value[property.name='message']",
    message: 'Log the error itself ({ err }), not its message: the logger writes message, stack and code.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.ab/**'] },
  js.configs.recommended,
  // Type-aware rules for every TypeScript file. The project service gives each file the nearest
  // tsconfig.json: the root one for src/, test/, bench/ and testkit/, dashboard/tsconfig.json for
  // the dashboard (vite.config.ts included), so the dashboard is type-checked with its own DOM lib
  // and JSX settings.
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // A caught error or a rejection reason (typed unknown) may be passed on as it is, as
      // only-throw-error lets it be rethrown; any other rejection reason must be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...PRIVATE_ACCESS, ...LOGGED_ERRORS] } },
  { files: ['src/cli.ts', 'src/cli/**', 'test/**', 'bench/**', '*.js', '*.mjs'], rules: { 'no-console': 'off' } },
  // The dashboard runs in the browser: its globals, and no Node ones.
  { files: ['dashboard/**/*.{ts,tsx}'], languageOptions: { globals: globals.browser } },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
        Blob: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    files: ['*.js', 'bench/**/*.js', 'testkit/**/*.js', 'test/**/*.js', 'scripts/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Tests: supertest's `res.body` (and jest's asymmetric matchers) are `any` by design, so the
  // no-unsafe-* rules would flag every assertion on a response. Every other type-checked rule stays on.
  {
    files: ['test/**/*.ts', 'bench/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // Plain JavaScript is in no tsconfig: it keeps the rules that need no type information.
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  // Last: Prettier owns the layout, so no rule may disagree with it (no-unexpected-multiline flags
  // the member chains it breaks across lines).
  prettier,
);
