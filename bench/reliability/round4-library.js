// Round-four probes of the library as a user coming from dsh-system1 meets it (items 7, 8, 9): the contracts
// entry, a provider factory's `id`, and the key variable a factory's error names. Each runs a small consumer
// script in its own Node process, which resolves `system1-gateway/...` through the build's package.json
// "exports" (as a project that installed it does), against fake engines on 127.0.0.1.
'use strict';
const path = require('node:path');
const { ROOT } = require('../lib');
const { run, sandbox } = require('./child');

const KEY = 'sk-reliability-FACTORY-KEY-31';
/** Everything a consumer script starts with: the build's own `require`, a quiet library on the mock. */
const PRELUDE = `
const path = require('node:path');
const { createRequire } = require('node:module');
const [root, input] = [process.argv[2], JSON.parse(process.argv[3] || '{}')];
const need = createRequire(path.join(root, 'package.json'));
const out = (result) => process.stdout.write(JSON.stringify(result) + '\\n');
const attempt = (work) => { try { return { value: work() }; } catch (error) { return { error }; } };
const TOPIC = { type: 'choice', instructions: 'Choose a topic.', criteria: { billing: 'Billing refund', technical: 'Technical support' } };
const service = () => need('system1-gateway').createSystem1({ logger: false });
`;

/** Runs `body` (after the prelude) against the build of `main`; its one JSON line, or how it ended. */
async function consumer(main, body, input = {}) {
  const box = sandbox();
  try {
    const script = box.file(
      'consumer.js',
      `${PRELUDE}\n(async () => {\n${body}\n})().catch((e) => out({ crashed: String(e && e.code || e) }));\n`,
    );
    const root = path.dirname(path.dirname(main));
    const ended = await run(script, [root, JSON.stringify(input)], {
      env: box.env({ SYSTEM1_CONFIG: box.file('config.toml', '[gateway]\nprovider = "mock"\n') }),
      cwd: box.dir,
      killAfterMs: 30_000,
    });
    const line = ended.stdout.trim().split('\n').pop();
    try {
      return JSON.parse(line);
    } catch {
      return { ended: ended.ended, stderr_lines: ended.stderr.split('\n').filter(Boolean).length };
    }
  } finally {
    box.dispose();
  }
}

/** Fake engines that want `KEY` as their bearer, by factory; started and stopped around `work`. */
async function withFakes(work) {
  const fakes = {
    typesafe: new (require(path.join(ROOT, 'dist-fakes', 'typesafe.fake.js')).TypeSafeFake)({ apiKey: KEY }),
    laya: new (require(path.join(ROOT, 'dist-fakes', 'laya.fake.js')).LayaFake)({ apiKey: KEY }),
    cloudflare: new (require(path.join(ROOT, 'dist-fakes', 'cloudflare.fake.js')).CloudflareFake)({ apiKey: KEY }),
  };
  for (const engine of Object.values(fakes)) {
    engine.record = false;
    await engine.start();
  }
  try {
    return await work(fakes);
  } finally {
    for (const engine of Object.values(fakes)) await engine.stop();
  }
}

/** Item 7: does `require('system1-gateway/contracts')` work, with the error classes the library throws? */
async function contractsEntry(main) {
  return consumer(
    main,
    `
    const got = attempt(() => need('system1-gateway/contracts'));
    if (got.error) return out({ required: false, error_code: got.error.code ?? 'none' });
    const contracts = got.value;
    const nestLoaded = Object.keys(require.cache).some((file) => file.includes('@nestjs'));
    const refused = await need('system1-gateway').createSystem1({ timeoutMs: -1, logger: false }).catch((e) => e);
    out({
      required: true,
      error_classes: Object.keys(contracts).filter((name) => /Error$/.test(name)).length,
      library_error_is_contracts_class: refused instanceof contracts.System1InputError,
      nest_loaded_by_contracts: nestLoaded,
    });
  `,
  );
}

/** Item 8: a factory given `id` (and an option it does not take), as a dsh-system1 user writes it. */
async function factoryId(main) {
  return withFakes((fakes) =>
    consumer(
      main,
      `
      const { createTypesafeProvider } = need('system1-gateway/providers/typesafe');
      const system1 = await service();
      const engine = createTypesafeProvider({ id: 'jevX', baseURL: input.origin, apiKey: input.key });
      const alone = attempt(() => system1.registerProvider(engine));
      // What a user without registerProvider(engine) writes instead: a name of their own.
      if (alone.error) system1.registerProvider('typesafe-own', engine);
      const asked = alone.error ? 'typesafe-own' : 'jevX';
      const result = await system1.decide({ state: 'x', questions: { topic: TOPIC }, model: { provider: asked } });
      const typo = attempt(() => createTypesafeProvider({ ids: 'jevX', baseURL: input.origin, apiKey: input.key }));
      await system1.close();
      out({
        engine_name: engine.name ?? null,
        registered_by_its_id: !alone.error,
        executed_provider: result.meta.executed ? result.meta.executed.provider : null,
        unknown_option_refused: Boolean(typo.error),
        unknown_option_named: typo.error ? typo.error.field ?? null : null,
      });
    `,
      { origin: fakes.typesafe.url.origin, key: KEY },
    ),
  );
}

/**
 * Item 9: each factory without a key. Which variable does its error name, and does setting that variable
 * (as the user then does) make the next call work? The factory's own default variable is tried last.
 */
async function factoryKeyVariable(main) {
  return withFakes(async (fakes) =>
    consumer(
      main,
      `
      const FACTORIES = {
        typesafe: ['system1-gateway/providers/typesafe', 'createTypesafeProvider', 'TYPESAFE_API_KEY', {}],
        laya: ['system1-gateway/providers/laya', 'createLayaProvider', 'LAYA_API_KEY', {}],
        cloudflare: ['system1-gateway/providers/cloudflare', 'createCloudflareProvider', 'CLOUDFLARE_API_TOKEN', { accountId: input.accountId }],
      };
      const system1 = await service();
      const seen = {};
      for (const [name, [entry, factory, reads, extra]] of Object.entries(FACTORIES)) {
        for (const variable of Object.keys(process.env)) if (/API_KEY|API_TOKEN/.test(variable)) delete process.env[variable];
        system1.registerProvider('own-' + name, need(entry)[factory]({ baseURL: input.origins[name], ...extra }));
        const ask = async () => (await system1.decide({ state: 'x', questions: { topic: TOPIC }, model: { provider: 'own-' + name } })).answers.topic;
        const keyless = await ask();
        const named = keyless.status === 'error' ? (/[A-Z][A-Z0-9_]*_(?:API_KEY|API_TOKEN)/.exec(keyless.error.message) || [null])[0] : null;
        if (named) process.env[named] = input.key;
        const afterNamed = (await ask()).status;
        process.env[reads] = input.key;
        seen[name] = { error_names: named, works_after_setting_it: afterNamed === 'ok', factory_reads: reads };
      }
      await system1.close();
      out(seen);
    `,
      {
        key: KEY,
        accountId: fakes.cloudflare.accountId,
        origins: Object.fromEntries(Object.entries(fakes).map(([name, engine]) => [name, engine.url.origin])),
      },
    ),
  );
}

module.exports = {
  library_contracts_entry: contractsEntry,
  library_factory_id: factoryId,
  library_factory_key_variable: factoryKeyVariable,
};
