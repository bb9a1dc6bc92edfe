// Unit tests of the page's plain modules (routes, times, API messages); the page itself is tested in a browser (test/e2e/participant-page.test.ts).
module.exports = require('../jest.base')(__dirname);
