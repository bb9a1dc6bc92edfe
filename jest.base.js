// Shared jest settings: ts-jest on the sources, workspace packages mapped to their src.
const path = require('node:path');

module.exports = (dir, overrides = {}) => ({
  rootDir: dir,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.json'), diagnostics: false }] },
  moduleNameMapper: {
    '^@em/core$': path.join(__dirname, 'core/src'),
    '^@em/core/(data|storage|jobs|media|testing)$': path.join(__dirname, 'core/src/$1'),
    '^@em/subgraph-kit$': path.join(__dirname, 'subgraphs/kit/src'),
  },
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  // CPU speed differs several-fold between machines of one kind: a test checks behaviour, and speed is
  // measured by `npm run bench`, so jest's 5 s default would fail correct code on a slow machine.
  testTimeout: 60_000,
  ...overrides,
});
