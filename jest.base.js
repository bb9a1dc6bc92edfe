// Shared jest settings: ts-jest on the sources, workspace packages mapped to their src.
const path = require('node:path');

module.exports = (dir, overrides = {}) => ({
  rootDir: dir,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.json'), diagnostics: false }] },
  moduleNameMapper: {
    '^@em/core$': path.join(__dirname, 'core/src'),
    '^@em/core/dist/testing$': path.join(__dirname, 'core/src/testing'),
    '^@em/subgraph-kit$': path.join(__dirname, 'subgraphs/kit/src'),
  },
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  ...overrides,
});
