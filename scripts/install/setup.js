'use strict';
// The installer's last step: leave a config that passes `system1 smoke`. When the user has not chosen an
// engine (no [gateway] provider in the config, or the config was just created, and no SYSTEM1_PROVIDER), it
// tries what this machine offers (./engines.js), each with the gateway's own smoke check through environment
// variables, writes the first that passes into the config, and falls back to the mock engine, saying how to get
// a real one. A user's choice is never changed. Then it runs `system1 smoke` and shows its verdict.
const { spawnSync } = require('node:child_process');
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { findEngines } = require('./engines');

/** A question a local engine answers for free: a trial decides more than a health probe shows. */
const TRIAL_QUESTION = [
  '--question',
  'Rerun the flaky pipeline or block the merge?',
  '--options',
  'rerun the pipeline',
  'block the merge',
];

/** `node <main> smoke ...` with `env`: `{ ok, why }` from its JSON report, why naming the failing layer. */
function trialSmoke(main, env, extra) {
  const run = spawnSync(process.execPath, [main, 'smoke', '--json'].concat(extra), {
    env,
    encoding: 'utf8',
    timeout: 120000,
  });
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch (error) {
    return {
      ok: false,
      why: `smoke did not report (${(run.stderr || String(run.error || '')).trim().split('\n').pop()})`,
    };
  }
  const failed = report.layers.find((layer) => !layer.ok);
  return { ok: report.ok === true, why: failed ? `${failed.layer}: ${failed.detail}` : '' };
}

/** The candidate's settings as the SYSTEM1_<PROVIDER>_<KEY> variables the gateway reads over the file. */
function trialEnv(env, candidate) {
  const trial = Object.assign({}, env, { SYSTEM1_PROVIDER: candidate.provider });
  for (const key of Object.keys(candidate.settings))
    trial[`SYSTEM1_${candidate.provider.toUpperCase()}_${key.toUpperCase()}`] = candidate.settings[key];
  return trial;
}

/** The config as TOML, through the installed copy's parser (the clone's node_modules are for building only). */
function readConfig(app, file) {
  const { parse } = createRequire(path.join(app, 'package.json'))('smol-toml');
  try {
    return { doc: parse(fs.readFileSync(file, 'utf8')) };
  } catch (error) {
    if (error.code === 'ENOENT') return { doc: {} };
    return { broken: String(error.message).split('\n')[0] };
  }
}

/** Why the engine is the user's choice and stays, or undefined when setup may choose. */
function usersChoice(env, config, created) {
  if (env.SYSTEM1_PROVIDER) return `SYSTEM1_PROVIDER=${env.SYSTEM1_PROVIDER} in this environment chooses the engine`;
  if (created) return undefined;
  const gateway = config.doc && config.doc.gateway;
  if (gateway && gateway.provider !== undefined)
    return `your config chooses provider = ${JSON.stringify(gateway.provider)}`;
  return undefined;
}

/** How to get a real engine; a model `engine pull` completed is found by the installed copy's own rule. */
function howToGetOne(app, dir) {
  const { pulledModels } = require(path.join(app, 'dist', 'local-engines', 'reranker', 'pulled-models.js'));
  const pulled = pulledModels(path.join(dir, 'engines', 'reranker', 'models')).map((model) => model.folder);
  if (pulled.length > 0)
    return `A reranker model is pulled (${pulled.join(', ')}): \`system1 engine start reranker\` starts it and switches the config to it.`;
  return 'For a real one: `system1 engine pull reranker` then `system1 engine start reranker`, or install Ollama (https://ollama.com), pull a chat model and set [gateway] provider = "ollama" with [providers.ollama] model (/system1:choose-model walks through it).';
}

/**
 * Chooses an engine unless the user has, writes it with the one config editor, and runs the smoke check.
 * @param {{ app: string, dir: string, env: Record<string, string>, config: string, created: boolean }} options
 */
async function setup({ app, dir, env, config, created }) {
  const main = path.join(app, 'dist', 'main.js');
  // the installed copy's build of src/config/config-edit.js, which has smol-toml beside it
  const { setConfigValues, ConfigEditError } = require(path.join(app, 'dist', 'config', 'config-edit.js'));
  console.log('\nChoosing an engine ...');
  const current = readConfig(app, config);
  const kept = current.broken
    ? `the config is not valid TOML (${current.broken}), so it was left as it is`
    : usersChoice(env, current, created);
  if (kept) {
    console.log(`Kept the engine: ${kept}. Setup does not change a choice; /system1:choose-model helps with another.`);
  } else {
    const { candidates, notes } = await findEngines({
      env,
      fileProviders: (current.doc && current.doc.providers) || {},
    });
    for (const note of notes) console.log(`  ${note}`);
    let chosen;
    for (const candidate of candidates) {
      // a hosted engine's check is its health route (unbilled); a decision there would be billed
      const result = trialSmoke(main, trialEnv(env, candidate), candidate.hosted ? [] : TRIAL_QUESTION);
      console.log(
        `  ${candidate.what}: ${result.ok ? 'passes the smoke check' : `fails the smoke check at ${result.why}`}`,
      );
      if (result.ok) {
        chosen = candidate;
        break;
      }
    }
    // The mock written here is marked as the installer's, not the user's choice: serve-openai's fast path and the
    // served Decisions API refuse a placeholder, so it never answers in a real model's place unasked.
    const settings = chosen
      ? Object.keys(chosen.settings).map((key) => ({
          table: `providers.${chosen.provider}`,
          key,
          value: chosen.settings[key],
        }))
      : [{ table: 'providers.mock', key: 'placeholder', value: true }];
    try {
      setConfigValues(
        config,
        [{ table: 'gateway', key: 'provider', value: chosen ? chosen.provider : 'mock' }].concat(settings),
      );
      if (chosen) console.log(`Set provider = "${chosen.provider}" in ${config}: ${chosen.what}.`);
      else
        console.log(
          `No engine answered, so ${config} now says provider = "mock" with placeholder = true: a stand-in that decides nothing real, which serve-openai and /v1/decisions refuse to answer with. ${howToGetOne(app, dir)}`,
        );
    } catch (error) {
      if (!(error instanceof ConfigEditError)) throw error;
      console.log(`Could not write the engine into ${config}: ${error.message}`);
    }
  }
  console.log('\nChecking it (system1 smoke):');
  const smoke = spawnSync(process.execPath, [main, 'smoke'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  return smoke.status === 0;
}

module.exports = { setup };
