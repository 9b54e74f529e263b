// Pools and the tail (issue 29): system1_decide through the stdio server against fake Laya replicas on loopback,
// each answering in HEALTHY_MS, one of them (when slow) taking SLOW_MS for one request in SLOW_EVERY of its own:
//   - one replica, this build and the baseline (the build before pools: BENCH_BASELINE_MAIN);
//   - three replicas (this build; the baseline takes one endpoint);
//   - the slow replica as the baseline's one endpoint, and three replicas with it among them, hedging off and
//     hedge_after_ms = "auto";
// with p50/p99 latency seen by the client and engine calls per decision. Then the balancer's rule beside other
// rules, simulated in virtual time with the compiled balancer and load tracker of this build (no sockets), so
// the rule is compared alone, on the same request stream.
'use strict';
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const {
  ROOT,
  MAIN,
  BASELINE_MAIN,
  fake,
  isolatedEnv,
  gateway,
  summary,
  drive,
  save,
  ms,
  sized,
  rotated,
} = require('./lib');

const DECISIONS = sized(2000, 200);
const WARM_UP = sized(200, 40);
const ROUNDS = sized(3, 1);
const IN_FLIGHT = 16;
const HEALTHY_MS = 20;
const SLOW_MS = 1000;
const SLOW_EVERY = 10;
const ARGS = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: ['rerun the pipeline', 'block the merge'],
};

/** Fake Laya replicas; with `slow`, the first answers SLOW_MS for every SLOW_EVERY-th of its requests. */
async function startReplicas(count, slow) {
  const replicas = [];
  for (let i = 0; i < count; i++) {
    const engine = fake('laya');
    engine.latencyMs = () => HEALTHY_MS;
    engine.slowMs = SLOW_MS;
    engine.calls = 0;
    engine.chooseFault = () => {
      engine.calls++;
      return slow && i === 0 && engine.calls % SLOW_EVERY === 0 ? 'slow' : 'none';
    };
    await engine.start();
    replicas.push(engine);
  }
  return replicas;
}

const SCENARIOS = [
  { name: 'one replica', replicas: 1, slow: false, builds: ['this', 'baseline'] },
  { name: 'three replicas', replicas: 3, slow: false, builds: ['this'] },
  { name: 'the slow replica alone', replicas: 1, slow: true, builds: ['this', 'baseline'] },
  { name: 'three, one slow, hedging off', replicas: 3, slow: true, builds: ['this'] },
  { name: 'three, one slow, hedge auto', replicas: 3, slow: true, hedge: 'auto', builds: ['this'] },
];

function configFor(scenario, replicas) {
  const urls = replicas.map((engine) => JSON.stringify(engine.url.origin));
  const table = replicas.length === 1 ? `endpoint = ${urls[0]}` : `endpoints = [${urls.join(', ')}]`;
  return `[gateway]\nprovider = "laya"\ntimeout_s = 10\n${scenario.hedge ? `hedge_after_ms = "${scenario.hedge}"\n` : ''}[providers.laya]\n${table}\n`;
}

/** One scenario with one build: warm-up, then DECISIONS at IN_FLIGHT; durations, calls and outcomes. */
async function runOnce(scenario, main) {
  const replicas = await startReplicas(scenario.replicas, scenario.slow);
  const env = isolatedEnv();
  const config = path.join(env.HOME, 'config.toml');
  mkdirSync(env.HOME, { recursive: true });
  writeFileSync(config, configFor(scenario, replicas));
  const gw = await gateway({ ...env, SYSTEM1_CONFIG: config }, main);
  const call = async () => {
    const result = await gw.client.callTool({ name: 'system1_decide', arguments: ARGS });
    const body = result.structuredContent;
    if (body.status !== 'decided') throw new Error(`${scenario.name}: ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  for (let i = 0; i < WARM_UP; i++) await call();
  for (const engine of replicas) engine.calls = 0;
  const outcomes = { hedged: 0, cancelled: 0 };
  const durations = await drive(DECISIONS, IN_FLIGHT, async () => {
    const body = await call();
    for (const attempt of body.attempts) if (attempt.outcome in outcomes) outcomes[attempt.outcome]++;
  });
  await gw.close();
  const perReplica = replicas.map((engine) => engine.calls);
  await Promise.all(replicas.map((engine) => engine.stop()));
  return { durations, calls: perReplica.reduce((a, b) => a + b, 0), perReplica, outcomes };
}

// ---- the rule, simulated ----------------------------------------------------------------------------------

/** A deterministic stream of numbers in [0, 1) (mulberry32), so every rule sees the same service times. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIM_REQUESTS = sized(30000, 3000);

/**
 * Closed loop in virtual time: `inFlight` callers, each sending its next request as the last one answers; three
 * replicas answering in HEALTHY_MS (jittered ±20%), the first taking SLOW_MS for every SLOW_EVERY-th of its
 * requests. `pick(stats, turn)` chooses a replica from each one's in-flight count and latency average, kept by
 * this build's EndpointLoad on the virtual clock.
 */
function simulate(pick, inFlight) {
  const { EndpointLoad } = require(path.join(ROOT, 'dist', 'decisions', 'pools', 'endpoint-load.service.js'));
  let now = 0;
  class VirtualLoad extends EndpointLoad {
    now() {
      return now;
    }
  }
  const load = new VirtualLoad();
  const members = [0, 1, 2].map((i) => ({ url: `replica-${i}`, weight: 1, provider: {} }));
  const served = [0, 0, 0];
  const jitter = random(29);
  const running = [];
  const latencies = [];
  let sent = 0;
  let turn = 0;
  let slowHits = 0;
  const send = () => {
    const stats = members.map((member) => ({ member, ...load.of('sim', member) }));
    const index = members.indexOf(pick(stats, turn++).member);
    served[index]++;
    const slow = index === 0 && served[0] % SLOW_EVERY === 0;
    if (slow) slowHits++;
    const took = slow ? SLOW_MS : HEALTHY_MS * (0.8 + 0.4 * jitter());
    running.push({ end: now + took, took, done: load.start('sim', members[index]) });
    sent++;
  };
  for (let i = 0; i < inFlight; i++) send();
  while (running.length > 0) {
    let first = 0;
    for (let i = 1; i < running.length; i++) if (running[i].end < running[first].end) first = i;
    const [call] = running.splice(first, 1);
    now = call.end;
    call.done('answered', call.took);
    latencies.push(call.took);
    if (sent < SIM_REQUESTS) send();
  }
  return { ...summary(latencies), slow_share: slowHits / SIM_REQUESTS, per_replica: served };
}

function rules() {
  const { pickEndpoint } = require(path.join(ROOT, 'dist', 'decisions', 'pools', 'endpoint-balancer.js'));
  return {
    'least in flight, ties by latency average (this build)': (stats, turn) => pickEndpoint(stats, turn),
    'least in flight, ties in turn': (stats, turn) =>
      pickEndpoint(
        stats.map(({ ewmaMs: _ewma, ...rest }) => rest),
        turn,
      ),
    'round robin': (stats, turn) => stats[turn % stats.length],
    'lowest latency average only': (stats, turn) => {
      const best = Math.min(...stats.map((s) => s.ewmaMs ?? 0));
      const tied = stats.filter((s) => (s.ewmaMs ?? 0) === best);
      return tied[turn % tied.length];
    },
  };
}

async function main() {
  const builds = { this: MAIN, ...(BASELINE_MAIN && { baseline: BASELINE_MAIN }) };
  const runs = [];
  for (const scenario of SCENARIOS)
    for (const build of scenario.builds) if (builds[build]) runs.push({ scenario, build });
  const collected = new Map(
    runs.map((run) => [
      `${run.scenario.name} / ${run.build}`,
      { durations: [], calls: 0, perReplica: [], outcomes: { hedged: 0, cancelled: 0 } },
    ]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const run of rotated(runs, round)) {
      const key = `${run.scenario.name} / ${run.build}`;
      console.error(`round ${round + 1}/${ROUNDS}: ${key}`);
      const once = await runOnce(run.scenario, builds[run.build]);
      const into = collected.get(key);
      into.durations.push(...once.durations);
      into.calls += once.calls;
      into.perReplica = once.perReplica.map((count, i) => count + (into.perReplica[i] ?? 0));
      into.outcomes.hedged += once.outcomes.hedged;
      into.outcomes.cancelled += once.outcomes.cancelled;
    }
  }
  const scenarios = {};
  for (const run of runs) {
    const key = `${run.scenario.name} / ${run.build}`;
    const { durations, calls, perReplica, outcomes } = collected.get(key);
    const stats = summary(durations);
    scenarios[run.scenario.name] ??= {};
    scenarios[run.scenario.name][run.build] = {
      ...stats,
      calls_per_decision: calls / durations.length,
      per_replica: perReplica,
      hedged: outcomes.hedged,
      cancelled: outcomes.cancelled,
      waited_for_slow: durations.filter((d) => d >= SLOW_MS * 0.9).length,
    };
  }
  const at = (name, build = 'this') => scenarios[name]?.[build];
  const ratios = {
    hedged_p99_to_healthy_p99: at('three, one slow, hedge auto').p99 / at('three replicas').p99,
    hedged_extra_calls: at('three, one slow, hedge auto').calls_per_decision - 1,
    one_replica_p50_to_baseline: at('one replica', 'baseline')
      ? at('one replica').p50 / at('one replica', 'baseline').p50
      : null,
  };

  const simulated = {};
  for (const [name, rule] of Object.entries(rules()))
    simulated[name] = { in_flight_32: simulate(rule, 32), in_flight_4: simulate(rule, 4) };

  console.log(
    `system1_decide, ${DECISIONS} decisions x ${ROUNDS} rounds at ${IN_FLIGHT} in flight, replicas answering in ${HEALTHY_MS} ms (the slow one ${SLOW_MS} ms for 1 in ${SLOW_EVERY})`,
  );
  const table = {};
  for (const [name, byBuild] of Object.entries(scenarios)) {
    for (const [build, s] of Object.entries(byBuild)) {
      table[`${name} (${build})`] = {
        p50: ms(s.p50),
        p99: ms(s.p99),
        'calls/decision': s.calls_per_decision.toFixed(3),
        'waited for slow': s.waited_for_slow,
        hedged: s.hedged,
        'per replica': s.per_replica.join('/'),
      };
    }
  }
  console.table(table);
  console.log('the balancer rule, simulated (virtual time), 32 in flight:');
  console.table(
    Object.fromEntries(
      Object.entries(simulated).map(([name, s]) => [
        name,
        {
          p50: ms(s.in_flight_32.p50),
          p99: ms(s.in_flight_32.p99),
          'slow share %': (100 * s.in_flight_32.slow_share).toFixed(2),
          spread: s.in_flight_32.per_replica.join('/'),
        },
      ]),
    ),
  );
  save('pools', {
    decisions: DECISIONS,
    rounds: ROUNDS,
    warm_up: WARM_UP,
    in_flight: IN_FLIGHT,
    healthy_ms: HEALTHY_MS,
    slow_ms: SLOW_MS,
    slow_every: SLOW_EVERY,
    scenarios,
    ratios,
    simulated_requests: SIM_REQUESTS,
    simulated,
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
