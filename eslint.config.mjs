import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

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
    message: "ioredis's Command.isResolved is private: use the command's promise and the client's public options (commandTimeout).",
  },
  {
    selector: "MemberExpression[object.property.name='connection'][property.name='stream'], MemberExpression[property.name='stream'][object.type='TSAsExpression']",
    message: "A client's socket (pg's connection.stream, ioredis's stream) is private: use the library's public API.",
  },
  {
    selector: "CallExpression[callee.property.name='registerMetric']",
    message: "Define metrics with prom-client's own Counter/Histogram/Gauge and `registers:` (src/observability/metrics.ts).",
  },
  {
    selector: "AssignmentExpression[left.type='MemberExpression'][left.object.type!='ThisExpression'][left.property.name=/^(handle|sendCommand|write|emit|_.*)$/]",
    message: "Replacing a library object's method (app.handle, sendCommand, ...) patches its internals: use its public API or a middleware.",
  },
  {
    selector: "TSAsExpression[typeAnnotation.type='TSTypeLiteral'][expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
    message: '`x as unknown as { ... }` reaches members a library does not declare: use its public API.',
  },
];

/**
 * Log the error itself (`logger.warn('...', { err })`): the logger writes its message, stack and
 * code (src/observability/logger.ts). A field holding only `err.message` loses the stack.
 */
const LOGGED_ERRORS = [
  {
    selector: "CallExpression[callee.property.name=/^(error|warn|info|debug)$/] > ObjectExpression.arguments > Property[key.name=/^(err|error)$/] > MemberExpression.value[property.name='message']",
    message: "Log the error itself ({ err }), not its message: the logger writes message, stack and code.",
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.ab/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...PRIVATE_ACCESS, ...LOGGED_ERRORS] } },
  { files: ['src/cli.ts', 'src/cli/**', 'test/**', 'bench/**', '*.js', '*.mjs'], rules: { 'no-console': 'off' } },
  // The dashboard runs in the browser: its globals, and no Node ones.
  { files: ['dashboard/**/*.{ts,tsx}'], languageOptions: { globals: globals.browser } },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', URL: 'readonly', Blob: 'readonly', fetch: 'readonly' } } },
  { files: ['*.js', 'bench/**/*.js', 'testkit/**/*.js', 'test/**/*.js', 'scripts/**/*.js'], languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' } }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
