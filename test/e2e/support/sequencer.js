// The worker-crash test kills the platform's ml-worker: it runs after every other suite.
const Sequencer = require('@jest/test-sequencer').default;

class LastTheCrashTest extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => !t.path.includes('worker-crash')), ...sorted.filter((t) => t.path.includes('worker-crash'))];
  }
}

module.exports = LastTheCrashTest;
