// What each layer of `system1_decide` costs a busy stdio server: the build as it is beside copies of its own
// bundle in which DecideService.decide does less (layer by layer, from forwarding the question to the engine
// up to the whole pipeline), and the SDK-only floor, all forwarding to one fake System One engine answering at
// once. Per level, ROUNDS rounds in which every server runs PER_ROUND decisions in turn (the order rotated each
// round): decisions per second, and the server's CPU time per decision (user + system, from /proc: Linux).
// The copies are diagnostic only: each replaces the method's body in a copy of dist/bundle/serve-mcp.js with
// code that calls what the method itself calls, so a change to that method makes this script say which layer
// it cannot build rather than measure something else.
'use strict';
const {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { execFileSync } = require('node:child_process');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { ROOT, MAIN, BASELINE_MAIN, fake, isolatedEnv, connect, drive, save, sized, median, rotated } = require('./lib');

const ROUNDS = 7;
/** Decisions per server per round at each level (one at a time is slower: fewer of them). */
const PER_ROUND = { 1: sized(1000, 100), 16: sized(4000, 300), 64: sized(4000, 300) };
const LEVELS = [1, 16, 64];
const BUNDLE = path.join('dist', 'bundle', 'serve-mcp.js');

/** Where the method's body starts and ends in the built bundle (esbuild, whitespace minified). */
const BODY_START = 'async decide(raw,fallbackId,signal){';
const BODY_END = '}};exports2.DecideService=DecideService;';

// Each layer's body, in the bundle's own names for what decide.service.ts imports (the first line of the real
// body, which every layer keeps, is `const started=...`). Each adds one part of the real method's work.
const START =
  'const started=node_perf_hooks_1.performance.now();const requestId=fallbackId??(0,node_crypto_1.randomUUID)();';
const CHECK =
  'const check=(0,request_validation_1.checkDecideRequest)(raw);if(!check.ok)throw new Error(check.message);const question=check.request;';
const ENGINE = 'const decisions=this.decisions;const ref=decisions.chainFor()[0];';
const AS_ENVELOPE =
  'const answer=reply.answers[QUESTION_ID];return envelope(requestId,started,[],{status:"decided",decision:answer.value??null,confidence:answer.confidence??null,provider:ref.provider});';
const FORWARD = (question) =>
  `const reply=await decisions.resolve(ref).provider.evaluate({questions:{[QUESTION_ID]:choiceOf(${question})},requestId},{signal:signal??new AbortController().signal,requestId});`;

const LAYERS = {
  // The configured engine's adapter asked the question, its answer put in the S1 envelope: the transports, the
  // SDK, the adapter and its HTTP client, and the contract's result, with none of the pipeline's work.
  forward: START + ENGINE + FORWARD('raw') + AS_ENVELOPE,
  // ...and the request DTO's check first (checkDecideRequest).
  checked: START + CHECK + ENGINE + FORWARD('question') + AS_ENVELOPE,
  // ...and the engine's one attempt as the pipeline makes it (capabilities, the question plan, the deadline,
  // the reply copied as data), each answer read, calibrated and held to the threshold, and the S1 envelope.
  read:
    START +
    CHECK +
    ENGINE +
    'const request={questions:{[QUESTION_ID]:choiceOf(question)},requestId};const threshold=decisions.config.gateway.min_confidence;' +
    'const attempts=decisions.attempts;const attempt=await attempts.attempt({ref,provider:decisions.resolve(ref).provider,request,' +
    'timeoutMs:decisions.config.gateway.timeout_s*1000,requestId,last:true});' +
    'if(!attempt.ok)throw new Error(attempt.error.message);' +
    'return s1Reply({requestId,answers:attempts.readReply(ref,attempt,request,threshold,true),requested:ref,' +
    'attempts:[{...ref,outcome:"answered",latencyMs:0}],durationMs:0,threshold,...attempts.replyMeta(ref,attempt)},started);',
  // ...and the whole pipeline around that attempt (the chain, pools, cooldowns, load, hedging, the observers):
  // the real method without its log lines.
  pipeline:
    START +
    CHECK +
    'return s1Reply(await this.decisions.decide({questions:{[QUESTION_ID]:choiceOf(question)},...signal&&{signal},requestId},' +
    '{retryBadAnswers:true,surface:"system1_decide"}),started);',
};

/** A copy of the package whose bundle's DecideService.decide has `body`; the rest of the package is linked. */
function layerCopy(name, body, bundle) {
  const start = bundle.indexOf(BODY_START);
  const end = bundle.indexOf(BODY_END, start);
  if (start === -1 || end === -1 || bundle.indexOf(BODY_START, start + 1) !== -1)
    throw new Error(`DecideService.decide is not where this script expects it in ${BUNDLE}: update its layers`);
  const dir = mkdtempSync(path.join(tmpdir(), `system1-bench-layer-${name}-`));
  for (const entry of readdirSync(ROOT)) {
    if (entry !== 'dist' && entry !== '.git') symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  }
  cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  writeFileSync(path.join(dir, BUNDLE), bundle.slice(0, start + BODY_START.length) + body + bundle.slice(end));
  // The build's code cache is for the bundle as built; V8 would refuse it for this one anyway.
  rmSync(path.join(dir, `${BUNDLE}.cache`), { force: true });
  return dir;
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** A process's CPU time so far (user + system), in microseconds. */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/**
 * A process's CPU time so far split by thread (µs, from each thread's schedstat): the main thread, where
 * JavaScript runs, and the others, which are V8's helpers (the collector's parallel and concurrent work, the
 * compiler). A CPU profile samples only the main thread; these show what it leaves out.
 */
function threadMicros(pid) {
  const split = { main: 0, helpers: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
    } catch {
      continue; // a thread that ended between the listing and the read
    }
    split[tid === String(pid) ? 'main' : 'helpers'] += Number(text.split(' ')[0]) / 1000;
  }
  return split;
}

/** Decisions per server when its allocation is sampled (after as many again to warm it up). */
const ALLOCATION_DECISIONS = sized(5000, 500);

/**
 * What one server allocates per decision at 64 in flight (KB): started again with bench/allocation-sampler.js,
 * warmed up, then sampled over ALLOCATION_DECISIONS decisions (a window opened and closed with SIGUSR2).
 * Unlike CPU time, allocation hardly moves with the machine's load: it says which layer makes the most.
 */
async function allocatedKbPerDecision(name, args, env, decideOn) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'system1-bench-allocation-')), 'sampled.json');
  const server = await connect(['-r', path.join(__dirname, 'allocation-sampler.js'), ...args], {
    ...env,
    SYSTEM1_BENCH_ALLOCATION_FILE: file,
  });
  try {
    await decideOn(server, name, ALLOCATION_DECISIONS, 64);
    process.kill(server.pid, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the sampler starts in the server's next turns
    await decideOn(server, name, ALLOCATION_DECISIONS, 64);
    process.kill(server.pid, 'SIGUSR2');
    for (let waited = 0; waited < 5000 && !existsSync(file); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const { bytes, error } = JSON.parse(readFileSync(file, 'utf8'));
    if (bytes === null) throw new Error(`${name}: the allocation sampler failed: ${error}`);
    return Number((bytes / ALLOCATION_DECISIONS / 1024).toFixed(1));
  } finally {
    await server.close();
    rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

async function main() {
  const bundle = readFileSync(path.join(ROOT, BUNDLE), 'utf8');
  const copies = Object.fromEntries(
    Object.entries(LAYERS).map(([name, body]) => [name, layerCopy(name, body, bundle)]),
  );
  const engine = fake('systemone');
  const url = (await engine.start()).origin;
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'systemone', SYSTEM1_SYSTEMONE_ENDPOINT: url, ENGINE_URL: url });
  const commands = { floor: [path.join(__dirname, 'minimal-server-2x.js')] };
  for (const [name, dir] of Object.entries(copies)) commands[name] = [path.join(dir, 'dist', 'main.js'), 'mcp'];
  commands.as_built = [MAIN, 'mcp'];
  // The build before, as it was built (BENCH_BASELINE_MAIN): the same server's CPU per decision before a change.
  if (BASELINE_MAIN) commands.baseline = [BASELINE_MAIN, 'mcp'];
  const servers = {};
  for (const [name, args] of Object.entries(commands)) servers[name] = await connect(args, env);
  const names = Object.keys(servers);
  const decideOn = (server, name, total, inFlight) =>
    drive(total, inFlight, async () => {
      const result = await server.client.callTool({
        name: name === 'floor' ? 'decide' : 'system1_decide',
        arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] },
      });
      const decided =
        name === 'floor'
          ? JSON.parse(result.content[0].text).answers?.decision?.choice !== undefined
          : result.structuredContent?.status === 'decided';
      if (result.isError || !decided) throw new Error(`${name}: a decision failed: ${JSON.stringify(result)}`);
    });
  const run = (name, total, inFlight) => decideOn(servers[name], name, total, inFlight);
  const levels = {};
  const allocation = {};
  try {
    for (const name of names) await run(name, sized(2000, 200), 64);
    for (const inFlight of LEVELS) {
      const rounds = Object.fromEntries(
        names.map((name) => [name, { rate: [], cpu: [], main_thread_cpu: [], helper_threads_cpu: [] }]),
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of rotated(names, round)) {
          const { pid } = servers[name];
          const cpuBefore = cpuMicros(pid);
          const threadsBefore = threadMicros(pid);
          const started = performance.now();
          await run(name, PER_ROUND[inFlight], inFlight);
          const decisions = PER_ROUND[inFlight];
          rounds[name].rate.push(decisions / ((performance.now() - started) / 1000));
          rounds[name].cpu.push((cpuMicros(pid) - cpuBefore) / decisions);
          const threadsAfter = threadMicros(pid);
          rounds[name].main_thread_cpu.push((threadsAfter.main - threadsBefore.main) / decisions);
          rounds[name].helper_threads_cpu.push((threadsAfter.helpers - threadsBefore.helpers) / decisions);
        }
      }
      levels[inFlight] = Object.fromEntries(
        names.map((name) => [
          name,
          {
            decisions_per_s: median(rounds[name].rate),
            server_cpu_us: median(rounds[name].cpu),
            main_thread_cpu_us: median(rounds[name].main_thread_cpu),
            helper_threads_cpu_us: median(rounds[name].helper_threads_cpu),
            by_round: rounds[name],
          },
        ]),
      );
    }
    // One server at a time, after the rounds: the sampler slows the server it runs in.
    for (const name of names) allocation[name] = await allocatedKbPerDecision(name, commands[name], env, decideOn);
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.close()));
    await engine.stop();
    for (const dir of Object.values(copies)) rmSync(dir, { recursive: true, force: true });
  }
  const ratioToFloor = Object.fromEntries(
    LEVELS.map((level) => [
      level,
      Object.fromEntries(
        names.map((name) => [name, levels[level][name].decisions_per_s / levels[level].floor.decisions_per_s]),
      ),
    ]),
  );
  console.log(`each layer of system1_decide against the SDK-only floor, median of ${ROUNDS} rounds`);
  console.table(
    Object.fromEntries(
      names.map((name) => [
        name,
        Object.fromEntries(
          LEVELS.flatMap((level) => [
            [`${level}: decisions/s`, Math.round(levels[level][name].decisions_per_s)],
            [`${level}: µs CPU`, Math.round(levels[level][name].server_cpu_us)],
            [`${level}: ratio`, ratioToFloor[level][name].toFixed(2)],
          ]),
        ),
      ]),
    ),
  );
  console.log('at 64 in flight: µs of CPU per decision on the main thread and on V8 helper threads; KB allocated');
  console.table(
    Object.fromEntries(
      names.map((name) => [
        name,
        {
          'main thread µs': Math.round(levels[64][name].main_thread_cpu_us),
          'helper threads µs': Math.round(levels[64][name].helper_threads_cpu_us),
          'KB allocated': allocation[name],
        },
      ]),
    ),
  );
  save(
    'decomposition',
    {
      engine: 'fake systemone, answering at once',
      rounds: ROUNDS,
      decisions_per_round: PER_ROUND,
      layers: names,
      levels,
      ratio_to_floor: ratioToFloor,
      allocation_decisions: ALLOCATION_DECISIONS,
      allocated_kb_per_decision: allocation,
    },
    { baseline: BASELINE_MAIN ?? null },
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
