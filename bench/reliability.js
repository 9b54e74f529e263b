// Reliability (issues 17, 25 and 39): each defect a user or an attacker could meet, probed by running the built gateway
// as they would (raw JSON-RPC lines, special files, hostile configs, a router's clients), against this build
// and, with BENCH_BASELINE_MAIN, the baseline build beside it, interleaved. Each probe records what a user
// sees: answered or not, exit code, raw control characters on stderr, peak RSS, open descriptors, statuses.
// Every child runs under a hard kill timer (bench/reliability/child.js), so a build that hangs costs a probe
// a few seconds; times are not recorded, only whether something finished within its timer.
// The probes come in rounds, each with its own results file, since each round is compared with the build
// before it (BENCH_BASELINE_MAIN):
//   node bench/reliability.js            (npm run bench -- reliability): round two (issue 17), to results/reliability.json
//   node bench/reliability.js --round 3  (npm run bench -- reliability-3): round three (issue 25), to results/reliability-3.json
//   node bench/reliability.js --round 4  (npm run bench -- reliability-4): round four (issue 39), to results/reliability-4.json
//   node bench/reliability.js [--round 3] KEY ...    some probes, printed only (the keys are those of ROUNDS below)
'use strict';
const { fake, MAIN, BASELINE_MAIN, save, rotated } = require('./lib');
const { existsSync, statSync } = require('node:fs');
const { KILL_AFTER_MS, takeIncompleteBuildStarts, sleep } = require('./reliability/child');
const mcp = require('./reliability/mcp');
const files = require('./reliability/files');
const router = require('./reliability/router');
const engine = require('./reliability/engine');
const caller = require('./reliability/caller');
const oauth = require('./reliability/round4-oauth');
const library = require('./reliability/round4-library');
const pull = require('./reliability/round4-pull');
const pipeline = require('./reliability/round4-pipeline');
const router4 = require('./reliability/round4-router');
const files4 = require('./reliability/round4-files');

/** Each round's probes: a key in its results file, and what it runs against one build's dist/main.js. */
const ROUND_TWO = [
  ['mcp_prototype_arguments', mcp.prototypeArguments],
  ['mcp_misshapen_requests', mcp.misshapenRequests],
  ['mcp_stdin_closed_mid_answer', mcp.stdinClosedMidAnswer],
  ['mcp_stdout_closed', mcp.stdoutClosed],
  ['mcp_forged_request_id', mcp.forgedRequestId],
  ['hook_forged_prompt_id', files.routeHookForgedPromptId],
  ['config_prototype_provider_names', files.prototypeProviderNames],
  ['config_prototype_keys', files.prototypeKeys],
  ['config_fifo', files.fifoConfig],
  ['config_dev_zero', files.devZeroConfig],
  ['hook_fifo_config', files.routeHookFifoConfig],
  ['calibration_fifo', files.fifoCalibration],
  ['hook_fifo_routing_log', files.routeHookFifoLog],
  ['session_check_fifo', files.sessionCheckFifo],
  ['session_check_sparse_log', files.sessionCheckSparse],
  ['hook_huge_prompt', files.routeHookHugePrompt],
  ['hook_logged_prompt', files.routeHookLoggedPrompt],
  ['router_self_upstream', router.selfUpstream],
  ['router_mutual_upstreams', router.mutualUpstreams],
  ['router_body_over_limit', router.bodyOverLimit],
  ['router_concurrent_bodies', router.concurrentBodies],
  ['router_slow_clients', router.slowClients],
  ['router_blank_token', router.blankToken],
  ['router_foreign_host', router.foreignHost],
  ['router_hop_by_hop', router.hopByHop],
  ['router_long_property_name', router.longPropertyName],
  ['router_shadow_unavailable', router.shadowUnavailable],
  ['engine_dotted_localhost', engine.dottedLocalhost],
  ['engine_proxy_refusal', engine.proxyRefusal],
  ['engine_echoed_key', engine.echoedKey],
];

/** Round three (issue 25): one caller against everyone on a shared serve-http, and the edges found beside it. */
const ROUND_THREE = [
  ['http_caller_cooldown', caller.callerCooldown],
  ['http_caller_model_memory', caller.callerModelMemory],
  ['http_caller_off_chain_engine', caller.callerOffChainEngine],
  ['http_wide_score', caller.wideScore],
  ['http_invented_provider_labels', caller.inventedProviderLabels],
  ['http_trickled_bodies', caller.trickledBodies],
  ['http_not_usable_message', caller.notUsableMessage],
  ['router_proxy_headers', router.proxyHeaders],
  ['hook_far_cooldown', files.routeHookFarCooldown],
];

/** Round four (issue 39): an unauthenticated client and a lying issuer against serve-http, and our own round. */
const ROUND_FOUR = [oauth, library, pull, pipeline, router4, files4].flatMap((probes) => Object.entries(probes));

const ROUNDS = {
  2: { probes: ROUND_TWO, results: 'reliability' },
  3: { probes: ROUND_THREE, results: 'reliability-3' },
  4: { probes: ROUND_FOUR, results: 'reliability-4' },
};

const BUILDS = [['this_build', MAIN], ...(BASELINE_MAIN ? [['baseline', BASELINE_MAIN]] : [])];

/** Times a probe is tried when the build it ran was incomplete (dist/ being rebuilt under it). */
const ATTEMPTS = 3;

/** Waits until `main` exists and dist/ has not changed for a few seconds (another build has finished). */
async function settledBuild(main) {
  const stamp = () => (existsSync(main) ? statSync(main).mtimeMs : NaN);
  for (let waited = 0; waited < 180_000; waited += 5_000) {
    const before = stamp();
    await sleep(5_000);
    if (Number.isFinite(before) && stamp() === before) return;
  }
  throw new Error(`${main} did not settle: is a build running?`);
}

/** Runs one probe on one build, again if a child met an incomplete build. */
async function probeOnce(key, probe, main, engineUrl) {
  for (let attempt = 1; ; attempt++) {
    takeIncompleteBuildStarts();
    const result = await probe(main, engineUrl);
    if (takeIncompleteBuildStarts() === 0) return result;
    if (attempt === ATTEMPTS)
      throw new Error(`${key}: ${main} was incomplete ${ATTEMPTS} times (a module missing): build it, then run again`);
    console.log(`${key}: ${main} was incomplete (being rebuilt?); trying again once it settles`);
    await settledBuild(main);
  }
}

/** A probe's result in one line for the console (long lists cut). */
const brief = (result) =>
  JSON.stringify(result, (key, value) => (key === 'replies' || key === 'by_case' ? undefined : value));

async function main() {
  const args = process.argv.slice(2);
  const roundAt = args.indexOf('--round');
  const round = ROUNDS[roundAt === -1 ? 2 : args[roundAt + 1]];
  if (!round) throw new Error(`--round takes one of ${Object.keys(ROUNDS).join(', ')}`);
  const only = roundAt === -1 ? args : args.filter((_, i) => i !== roundAt && i !== roundAt + 1);
  const unknown = only.filter((name) => !round.probes.some(([key]) => key === name));
  if (unknown.length)
    throw new Error(`unknown probe ${unknown.join(', ')}; one of ${round.probes.map(([key]) => key).join(', ')}`);
  // The route hook's engine: a fake laya on 127.0.0.1 (npm run bench compiles the fakes).
  const laya = fake('laya');
  const engineUrl = (await laya.start()).origin;
  const probes = {};
  try {
    for (const [i, [key, probe]] of round.probes.entries()) {
      if (only.length && !only.includes(key)) continue;
      probes[key] = {};
      for (const [build, main] of rotated(BUILDS, i)) {
        probes[key][build] = await probeOnce(key, probe, main, engineUrl);
        console.log(`${key} ${build}: ${brief(probes[key][build])}`);
      }
    }
  } finally {
    await laya.stop();
  }
  if (only.length) {
    console.log('(some probes only: nothing saved)');
    return;
  }
  save(round.results, { kill_after_ms: KILL_AFTER_MS, umask: `0${process.umask().toString(8)}`, probes });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
