// Soak: one stdio session, many decisions with many in flight, against a fake engine with jittered latency
// and a share of faults (the fallback answers those). Every request id must be answered exactly once, RSS
// must settle after warm-up, and sockets and descriptors must not pile up.
'use strict';
const { fake, isolatedEnv, MAIN, BASELINE_MAIN, rssMb, openFds, save } = require('./lib');
const { rawSession, decide } = require('./raw-session');

const FAULTS = ['status-500', 'status-503', 'reset', 'truncated', 'non-json', 'hang'];

async function soak(options = {}) {
  const { total = 10_000, inFlight = 100, faultShare = 0.05, quiet = false, main = MAIN } = options;
  const engine = fake('laya');
  let faults = 0;
  engine.latencyMs = () => 5 + Math.random() * 20;
  engine.chooseFault = () => (Math.random() < faultShare ? (faults++, FAULTS[Math.floor(Math.random() * FAULTS.length)]) : undefined);
  const url = await engine.start();
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: url.origin, SYSTEM1_FALLBACK: 'mock', SYSTEM1_TIMEOUT_S: '1', SYSTEM1_MIN_CONFIDENCE: '0' });
  const session = rawSession([main, 'mcp'], env);
  await session.ready;
  const pid = session.child.pid;
  const warmUp = Math.floor(total * (options.warmUpShare ?? 0.1));
  let sent = 0;
  let mismatched = 0;
  let errors = 0;
  let afterWarmUp;
  const outcomes = {};
  const worker = async () => {
    while (sent < total) {
      const i = ++sent;
      const reply = await session.request(decide(i, { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'], request_id: `soak-${i}` }));
      const body = reply.result?.structuredContent;
      if (!body || body.request_id !== `soak-${i}`) mismatched += 1;
      if (body?.status === 'error') errors += 1;
      const path = body?.attempts?.map((a) => `${a.provider}:${a.outcome}`).join('>') ?? 'none';
      outcomes[path] = (outcomes[path] ?? 0) + 1;
      if (i === warmUp) afterWarmUp = { rss: rssMb(pid), fds: openFds(pid) };
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const end = { rss: rssMb(pid), fds: openFds(pid) };
  const { seen, stray } = session.counts();
  let lost = 0;
  let duplicated = 0;
  for (let i = 1; i <= total; i++) {
    const count = seen.get(i) ?? 0;
    if (count === 0) lost += 1;
    if (count > 1) duplicated += 1;
  }
  await session.close();
  await engine.stop();
  const result = {
    command: `node bench/soak.js (total ${total}, ${inFlight} in flight, ${faultShare * 100}% faults, warm-up ${warmUp})`,
    main,
    total,
    in_flight: inFlight,
    faults_injected: faults,
    lost,
    duplicated,
    mismatched_request_ids: mismatched,
    stray_stdout_lines: stray,
    error_replies: errors,
    outcomes,
    decisions_per_second: Math.round(total / seconds),
    rss_mb: { after_warm_up: afterWarmUp.rss, end: end.rss, growth: end.rss - afterWarmUp.rss },
    open_fds: { after_warm_up: afterWarmUp.fds, end: end.fds },
  };
  if (!quiet) {
    console.table({ sent: total, faults: faults, lost, duplicated, mismatched, errors, 'decisions/s': result.decisions_per_second });
    console.table({ 'RSS MB': { 'after warm-up': afterWarmUp.rss.toFixed(1), end: end.rss.toFixed(1) }, 'open fds': { 'after warm-up': afterWarmUp.fds, end: end.fds } });
  }
  return result;
}

module.exports = { soak };

if (require.main === module) {
  (async () => {
    const result = await soak();
    // Another build's soak for comparison; its figures are recorded, not held to the target.
    if (BASELINE_MAIN) result.baseline = await soak({ main: BASELINE_MAIN });
    save('soak', result);
    const held = result.lost === 0 && result.duplicated === 0 && result.mismatched_request_ids === 0 && result.rss_mb.growth <= 20;
    console.log(held ? 'soak held' : 'soak FAILED');
    process.exitCode = held ? 0 : 1;
  })();
}
