// Two suites leave the shared platform changed, so they run after every other suite: the gateway-uploads
// suite (its accepted 10 x 50 MB uploads still raise the gateway's memory, an open item of docs/security.md,
// which would eat the load test's memory budget), then the worker-crash test (it kills the ml-worker).
const Sequencer = require('@jest/test-sequencer').default;

const LAST = ['gateway-uploads', 'worker-crash'];

class LastTheDisruptiveTests extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (t) => LAST.findIndex((name) => t.path.includes(name));
    return [...sorted.filter((t) => rank(t) < 0), ...LAST.flatMap((_, i) => sorted.filter((t) => rank(t) === i))];
  }
}

module.exports = LastTheDisruptiveTests;
