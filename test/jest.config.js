// End-to-end tests: one platform (real Postgres, Redis, S3 and every service) for the whole run.
module.exports = require('../jest.base')(__dirname, {
  testMatch: ['<rootDir>/e2e/**/*.test.ts'],
  testSequencer: '<rootDir>/e2e/support/sequencer.js',
  globalSetup: '<rootDir>/e2e/support/global-setup.ts',
  globalTeardown: '<rootDir>/e2e/support/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 1,
  // The platform runs from the built packages; the tests use the same (dist) modules.
  moduleNameMapper: {},
});
