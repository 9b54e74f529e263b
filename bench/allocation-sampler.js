// Loaded with `node -r` into a server that bench/decomposition.js measures: what the server allocates in a
// window the benchmark opens and closes with SIGUSR2 (after a warm-up, around a run of decisions). V8's
// sampling heap profiler counts every allocation, also what the collector freed since, so the bytes it
// sampled are what the window allocated (to within its sampling); they are written, as one JSON object, to
// the file named by SYSTEM1_BENCH_ALLOCATION_FILE. Everything stays in the process: an inspector session of
// its own, no port.
'use strict';
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const SAMPLING_INTERVAL_BYTES = 4096;
const session = new inspector.Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', {
        samplingInterval: SAMPLING_INTERVAL_BYTES,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      }),
    );
    return;
  }
  sampling = false;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    const bytes = error ? null : result.profile.samples.reduce((sum, sample) => sum + sample.size, 0);
    writeFileSync(process.env.SYSTEM1_BENCH_ALLOCATION_FILE, JSON.stringify({ bytes, error: error?.message }));
  });
});
