// Cooldown: the route hook against a hanging engine, prompt after prompt in one install dir (the first
// prompt waits out the hook's budget, the next ones skip the engine), beside the same prompts with the
// cooldown off (`cooldown_s = 0`); and DECISIONS decisions through the stdio server with a hanging primary and
// the mock as fallback, counting how often the primary's timeout was waited for.
'use strict';
const { spawn } = require('node:child_process');
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { fake, isolatedEnv, gateway, MAIN, summary, save, ms, sized } = require('./lib');

const PROMPTS = sized(10, 3);
const DECISIONS = sized(100, 10);
const TIMEOUT_S = 0.5;
const COOLDOWN_S = 30;
const PROMPT = 'Design the architecture for the new billing service and decide between a queue and cron jobs';

function routeHook(env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [MAIN, 'route-hook'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code }));
    child.stdin.end(JSON.stringify({ session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: PROMPT }));
  });
}

async function hookRun(url, cooldownS) {
  const env = isolatedEnv();
  mkdirSync(env.SYSTEM1_INSTALL_DIR, { recursive: true });
  const config = path.join(env.HOME, 'config.toml');
  writeFileSync(
    config,
    `[gateway]\nprovider = "laya"\ncooldown_s = ${cooldownS}\n[providers.laya]\nendpoint = "${url}"\n[routing]\nenabled = true\n`,
  );
  const runs = [];
  for (let i = 0; i < PROMPTS; i++) runs.push(await routeHook({ ...env, SYSTEM1_CONFIG: config }));
  return runs;
}

async function main() {
  const engine = fake('laya');
  engine.fault = 'hang';
  const url = (await engine.start()).origin;
  const on = await hookRun(url, COOLDOWN_S);
  const off = await hookRun(url, 0);
  const hook = {
    cooldown_on: {
      first_ms: on[0].ms,
      later: summary(on.slice(1).map((r) => r.ms)),
      exit_codes: [...new Set(on.map((r) => r.code))],
    },
    cooldown_off: {
      first_ms: off[0].ms,
      later: summary(off.slice(1).map((r) => r.ms)),
      exit_codes: [...new Set(off.map((r) => r.code))],
    },
  };

  const env = isolatedEnv({ SYSTEM1_TIMEOUT_S: String(TIMEOUT_S) });
  const config = path.join(env.HOME, 'chain.toml');
  writeFileSync(config, `[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoint = "${url}"\n`);
  const gw = await gateway({ ...env, SYSTEM1_CONFIG: config });
  let waited = 0;
  const started = performance.now();
  for (let i = 0; i < DECISIONS; i++) {
    const result = await gw.client.callTool({
      name: 'system1_decide',
      arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] },
    });
    if (result.structuredContent.attempts[0].outcome === 'timeout') waited += 1;
  }
  const decisions = {
    count: DECISIONS,
    timeout_s: TIMEOUT_S,
    primary_timeouts_waited: waited,
    total_ms: performance.now() - started,
  };
  await gw.close();
  await engine.stop();

  console.log(`route hook against a hanging engine, ${PROMPTS} prompts in one install dir (ms)`);
  console.table({
    [`cooldown on (${COOLDOWN_S} s)`]: {
      first: ms(hook.cooldown_on.first_ms),
      'later p50': ms(hook.cooldown_on.later.p50),
      'later p90': ms(hook.cooldown_on.later.p90),
    },
    'cooldown off (0)': {
      first: ms(hook.cooldown_off.first_ms),
      'later p50': ms(hook.cooldown_off.later.p50),
      'later p90': ms(hook.cooldown_off.later.p90),
    },
  });
  console.log(
    `${DECISIONS} decisions, hanging primary (timeout ${TIMEOUT_S} s) + mock: the primary's timeout was waited for ${waited} time(s), ${ms(decisions.total_ms)} ms in all`,
  );
  save('cooldown', { prompts: PROMPTS, cooldown_s: COOLDOWN_S, hook, decisions });
}

main();
