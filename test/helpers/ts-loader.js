/**
 * Lets a child process started from the TypeScript sources (under the test runner) `require`
 * `.ts` files: each is compiled to CommonJS with SWC as it is loaded, like Jest's own transform
 * does for the test files. Production runs the compiled `dist/` and never
 * loads this.
 */
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    module: { type: 'commonjs' },
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  });
  module._compile(code, filename);
};
