// Test-only preload for a server process (NODE_OPTIONS="--expose-gc --require <this file>"): on SIGUSR2 it
// collects all garbage, then says so on stderr. A heap figure read afterwards is what the server retains, not
// how far the collector happened to have got, which on a busy machine can be a hundred megabytes behind.
let collections = 0;
process.on('SIGUSR2', () => {
  global.gc();
  process.stderr.write(`test-gc: collection ${++collections} done\n`);
});
