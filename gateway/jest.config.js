const path = require('node:path');
const base = require('../jest.base')(__dirname);

// The REST adapter's route table (a test dependency: every route's operation must pass the limits).
module.exports = {
  ...base,
  moduleNameMapper: {
    ...base.moduleNameMapper,
    '^@em/rest-adapter$': path.join(__dirname, '..', 'rest-adapter', 'src'),
  },
};
