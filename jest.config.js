/** Jest: TypeScript through SWC (no type-check at test time; `npm run typecheck` does that). */
module.exports = {
  testEnvironment: 'node',
  // The suite, and the benchmark's own tests beside its code (bench/test/).
  roots: ['<rootDir>/test', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // Three on two CPUs: many integration tests spend their time waiting (timeouts, slow clients, child
  // processes), and a third worker runs another file meanwhile.
  maxWorkers: 3,
  // A worker is told to exit at the end and has this long to be gone before Jest kills it and
  // reports a leak. Jest's 500 ms is shorter than the kernel takes to tear down a worker that
  // has run a few dozen files (1.2-1.3 GB of RSS at the end of the suite): on a
  // paravirtualised machine the workers ran their exit 2 ms after being told, with no handle
  // open, and their exit reached Jest 650-830 ms later. A socket left open, or a timer longer
  // than this, still holds a worker and is still reported.
  workerGracefulExitTimeout: 3000,
  testTimeout: 30000,
};
