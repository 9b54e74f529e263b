// Where a busy stdio server's time goes: `system1 mcp` under `node --cpu-prof`, forwarding every decision to
// one fake System One engine (answering at once) at 64 in flight, and the profile summed into the parts
// issue 24 asked about. The bundle keeps the names of src/ (only whitespace and syntax are minified), so
// the parts are found by those names.
// Shares are of the profiled time without idle: self time for the garbage collector, inclusive time (a function and what it calls, counted once per sample) for the others, so parts may overlap.
'use strict';
const { mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { ROOT, fake, isolatedEnv, connect, drive, save, sized } = require('./lib');

const IN_FLIGHT = 64;
const DECISIONS = sized(20_000, 2_000);

/** Each part: how a profile node is recognised (by original name, or by script), and which time counts. */
const PARTS = {
  garbage_collector: { self: true, match: (frame) => frame.functionName === '(garbage collector)' },
  engine_call: { match: (frame) => frame.functionName === 'evaluate' && frame.url.endsWith('serve-mcp.js') },
  node_http_client: { match: (frame) => /^node:_http_(client|agent|outgoing|common)$/.test(frame.url) },
  sdk_request_parse: { match: (frame) => frame.functionName === 'safeParse' },
  // The whole check: the verdict of dto-verdict.ts, and class-validator's own call when something fails.
  request_dto_check: { match: (frame) => frame.functionName === 'checkDecideRequest' },
  engine_reply_copy: { match: (frame) => frame.functionName === 'plainData' },
  abort_signals: {
    match: (frame) =>
      ['createAbortSignal', 'addAbortSignal', 'any'].includes(frame.functionName) &&
      frame.url.startsWith('node:internal/abort'),
  },
  // Answers on stdout and log lines on stderr, each stream's lines of one turn in one write (TurnCork's uncork).
  stdout_writes: { match: (frame) => frame.functionName.endsWith('uncork') && frame.url.includes('writable') },
  pause_check: { match: (frame) => frame.functionName === 'isPaused' },
};

/** Shares of the profile's non-idle time per part, and the top functions by self time. */
function summarise(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const idle = (node) => ['(idle)', '(program)'].includes(node.callFrame.functionName);
  const time = Object.fromEntries(Object.keys(PARTS).map((part) => [part, 0]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(id);
    if (idle(leaf)) return;
    total += delta;
    const label = `${leaf.callFrame.functionName || '(anonymous)'} (${leaf.callFrame.url.split('/').pop() || 'native'})`;
    self.set(label, (self.get(label) ?? 0) + delta);
    for (const [part, { self: selfOnly, match }] of Object.entries(PARTS)) {
      if (selfOnly) {
        if (match(leaf.callFrame)) time[part] += delta;
        continue;
      }
      for (let node = leaf; node; node = byId.get(parent.get(node.id))) {
        if (match(node.callFrame)) {
          time[part] += delta;
          break;
        }
      }
    }
  });
  const share = (value) => value / total;
  return {
    profiled_ms: total / 1000,
    shares: Object.fromEntries(Object.entries(time).map(([part, value]) => [part, share(value)])),
    top_self: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([fn, value]) => ({ function: fn, share: share(value) })),
  };
}

async function main() {
  const engine = fake('systemone');
  const url = (await engine.start()).origin;
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-bench-profile-'));
  const server = await connect(
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, path.join(ROOT, 'dist', 'main.js'), 'mcp'],
    isolatedEnv({ SYSTEM1_PROVIDER: 'systemone', SYSTEM1_SYSTEMONE_ENDPOINT: url }),
  );
  const decide = () =>
    server.client.callTool({
      name: 'system1_decide',
      arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] },
    });
  try {
    await drive(sized(1000, 200), IN_FLIGHT, decide);
    await drive(DECISIONS, IN_FLIGHT, decide);
  } finally {
    await server.close();
    await engine.stop();
  }
  // The profile is written as the server exits, after the client closed its stdin.
  let file;
  for (
    let waited = 0;
    !(file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))) && waited < 10_000;
    waited += 100
  )
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!file) throw new Error('the server wrote no CPU profile');
  const summary = summarise(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `where system1 mcp's time goes at ${IN_FLIGHT} in flight against a fake engine (${DECISIONS} decisions, shares of non-idle time)`,
  );
  console.table(
    Object.fromEntries(Object.entries(summary.shares).map(([part, value]) => [part, `${(value * 100).toFixed(1)}%`])),
  );
  save(
    'profile',
    { in_flight: IN_FLIGHT, decisions: DECISIONS, engine: 'fake systemone, answering at once', ...summary },
    { baseline: null },
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
