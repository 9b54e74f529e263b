// Start-up: spawn to the first answered system1_decide, beside a bare `node -e ''` and the minimal SDK-only
// server's spawn to first answer, interleaved round by round so machine noise hits all three alike.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const { writeFileSync } = require('node:fs');
const { fake, isolatedEnv, MAIN, BASELINE_MAIN, sized, summary, save, ms } = require('./lib');
const { rawSession, decide } = require('./raw-session');

const ROUNDS = sized(15, 3);

function bareNode() {
  return new Promise((resolve) => {
    const started = performance.now();
    spawn(process.execPath, ['-e', '']).once('exit', () => resolve(performance.now() - started));
  });
}

async function firstAnswer(args, env, toolName) {
  const started = performance.now();
  const session = rawSession(args, env);
  await session.ready;
  await session.request(
    toolName === 'decide'
      ? { id: 1, method: 'tools/call', params: { name: 'decide', arguments: { question: 'q' } } }
      : decide(1, { question: 'q' }),
  );
  const elapsed = performance.now() - started;
  await session.close();
  return elapsed;
}

/** The route hook from spawn to exit, as Claude Code runs it, giving a hint from a warm fake engine. */
function routeHook(env, main = MAIN) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [main, 'route-hook'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', () =>
      out.includes('additionalContext')
        ? resolve(performance.now() - started)
        : reject(new Error('the hook gave no hint')),
    );
    child.stdin.end(
      JSON.stringify({
        session_id: 's',
        hook_event_name: 'UserPromptSubmit',
        prompt: 'Design the architecture for the new billing service and decide between a queue and cron jobs',
      }),
    );
  });
}

async function main() {
  const env = isolatedEnv({ SYSTEM1_PROVIDER: 'mock' });
  const engine = fake('laya');
  const url = (await engine.start()).origin;
  const config = path.join(env.HOME, 'routing.toml');
  writeFileSync(
    config,
    `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${url}"\n[routing]\nenabled = true\n`,
  );
  const hookEnv = { ...env, SYSTEM1_CONFIG: config };
  await routeHook(hookEnv); // warm the engine
  const samples = { 'node -e ""': [], 'minimal SDK server': [], gateway: [], 'route-hook (warm engine)': [] };
  if (BASELINE_MAIN) Object.assign(samples, { 'baseline gateway': [], 'baseline route-hook': [] });
  for (let round = 0; round < ROUNDS; round++) {
    samples['node -e ""'].push(await bareNode());
    samples['minimal SDK server'].push(await firstAnswer([path.join(__dirname, 'minimal-server.js')], env, 'decide'));
    samples.gateway.push(await firstAnswer([MAIN, 'mcp'], env, 'system1_decide'));
    samples['route-hook (warm engine)'].push(await routeHook(hookEnv));
    if (BASELINE_MAIN) {
      samples['baseline gateway'].push(await firstAnswer([BASELINE_MAIN, 'mcp'], env, 'system1_decide'));
      samples['baseline route-hook'].push(await routeHook(hookEnv, BASELINE_MAIN));
    }
  }
  await engine.stop();
  const stats = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)]));
  const ratio = stats.gateway.p50 / stats['minimal SDK server'].p50;
  console.log(
    `spawn to first answered decision, ms (${ROUNDS} interleaved rounds); gateway / minimal = ${ratio.toFixed(2)}`,
  );
  console.table(
    Object.fromEntries(Object.entries(stats).map(([name, s]) => [name, { p50: ms(s.p50), p90: ms(s.p90) }])),
  );
  const baseline = BASELINE_MAIN
    ? {
        baseline_main: BASELINE_MAIN,
        baseline_over_minimal_p50: stats['baseline gateway'].p50 / stats['minimal SDK server'].p50,
      }
    : {};
  save('startup', { rounds: ROUNDS, stats, gateway_over_minimal_p50: ratio, ...baseline });
}

main();
