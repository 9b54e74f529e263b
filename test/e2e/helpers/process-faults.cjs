// Test-only preload for the built CLI (NODE_OPTIONS="--require <this file>"), with the fault named by
// SYSTEM1_TEST_FAULT, for what a process does when something fails outside any request:
// - "no-stdin": reading process.stdin throws, so `mcp` fails after its container is built (the lean path);
// - "no-container": nest-commander cannot build the container, so any other command fails before it runs;
// - "reject-on-signal": on SIGUSR2 a promise is rejected with nothing to catch it, then "test-fault: rejected".
const fault = process.env.SYSTEM1_TEST_FAULT;
if (fault === 'no-stdin') {
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    get() {
      throw new Error('the test took stdin away');
    },
  });
}
if (fault === 'no-container') {
  const { CommandFactory } = require('nest-commander');
  CommandFactory.createWithoutRunning = () => Promise.reject(new Error('the test broke the container'));
}
if (fault === 'reject-on-signal') {
  process.on('SIGUSR2', () => {
    void Promise.reject(new Error('a stray rejection from the test'));
    process.stderr.write('test-fault: rejected\n');
  });
}
