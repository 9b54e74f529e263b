/**
 * The secret sweep: every key variable set to a recognisable value, the server and the CLI driven through
 * faults (an engine echoing the key back in every encoding among them), hostile input, a config with a key
 * in it, the routing hook and a calibration run, then everything they wrote (stdout, stderr, the log file,
 * replies, the routing log, calibration files) scanned for those values in every form an engine would echo.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ECHO_ENCODINGS, echoedKey } from '../fakes/fake-engine';
import { LayaFake } from '../fakes/laya.fake';
import { keyedBuiltInEngines } from '../helpers/keyed-engines';
import { requireBuild, Resources, ROOT, runCli, type Sandbox } from './helpers/gateway';

/**
 * Each keyed built-in engine's variable (from its definition), set to a value recognisable in any form; `/`
 * and `+` change under percent-encoding and JSON escaping, so each echoed form differs from the key.
 */
const ENGINE_KEYS: Record<string, [variable: string, secret: string]> = Object.fromEntries(
  keyedBuiltInEngines().map(({ provider, variable }, i) => [
    provider,
    [variable, `sk-sweep/${provider.toUpperCase()}+${i}f2e3d`],
  ]),
);
const SECRETS: Record<string, string> = {
  ...Object.fromEntries(Object.values(ENGINE_KEYS)),
  SYSTEM1_ROUTER_TOKEN: 'rt-sweep-ROUTER-8b9c0d',
};
const LAYA_KEY = ENGINE_KEYS.laya[1];
const FILE_SECRET = 'sk-sweep-IN-FILE-9z9z9z';

const resources = Resources.perTest();

/** A key as written and as an engine might echo it: base64 (of the key, `api:key`, `key:`), percent-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  const encoded = ECHO_ENCODINGS.map((encoding) => echoedKey(secret, encoding).replace(/^Basic /, ''));
  return [...new Set([...encoded, JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/')])];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

it('finds none of the keys in anything the gateway writes', async () => {
  requireBuild();
  const fake = new LayaFake({ apiKey: LAYA_KEY });
  const endpoint = (await fake.start()).origin;
  const sandbox: Sandbox = resources.sandbox();
  const logFile = path.join(sandbox.dir, 'logs', 'gateway.log');
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "laya"\nfallback = ["mock"]\ntimeout_s = 0.5\nlog_level = "DEBUG"\nlog_file = "${logFile}"\n` +
      `[providers.laya]\nendpoint = "${endpoint}"\n`,
  );
  const env = { ...SECRETS, SYSTEM1_CONFIG: config };
  const seen: string[] = [];
  try {
    const gateway = await resources.server({ sandbox, env });
    const ask = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
    for (const fault of [
      'none',
      'status-401',
      'status-500',
      'status-429',
      'redirect',
      'reset',
      'truncated',
      'non-json',
      'huge',
      'hang',
      'wrong-shape',
    ] as const) {
      fake.fault = fault;
      seen.push((await gateway.decide({ ...ask, request_id: `sweep-${fault}` })).text);
    }
    // The engine echoes the key back in its error body, on every route (health included), in each encoding.
    fake.faultEverywhere = true;
    for (const encoding of ECHO_ENCODINGS) {
      fake.fault = `echo-key-${encoding}`;
      seen.push(
        (await gateway.decide({ ...ask, request_id: `sweep-echo-${encoding}` })).text,
        JSON.stringify(await gateway.health()),
      );
    }
    fake.faultEverywhere = false;
    fake.fault = 'none';
    for (const hostile of [
      { question: '' },
      { question: 'q', api_key: 'x' },
      { question: 'q', context: { key: LAYA_KEY.slice(0, 6) } },
    ]) {
      seen.push((await gateway.decide(hostile)).text);
    }
    seen.push(JSON.stringify(await gateway.health()), JSON.stringify(await gateway.capabilities()));
    await gateway.close();
    seen.push(gateway.stderr());

    // A config with a key written into it: reported, never repeated.
    const broken = sandbox.writeConfig(
      `[gateway]\nprovider = "laya"\n[providers.laya]\napi_key = "${FILE_SECRET}"\n`,
      'broken.toml',
    );
    const smoke = await runCli(['smoke', '--json'], sandbox.env({ ...SECRETS, SYSTEM1_CONFIG: broken }));
    seen.push(smoke.stdout, smoke.stderr);

    // The routing hook, with the engine answering and refusing the key: its output and the routing log.
    const repo = path.join(sandbox.dir, 'repo');
    mkdirSync(repo);
    const routingLog = path.join(sandbox.dir, 'logs', 'routing.jsonl');
    const routed = sandbox.writeConfig(
      `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${endpoint}"\n[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${routingLog}"\n`,
      'routed.toml',
    );
    const prompt = 'Design the architecture for the new billing service and decide between a queue and cron jobs';
    for (const fault of ['none', 'status-401'] as const) {
      fake.fault = fault;
      // A whole budget of 10 s: on a loaded machine the first call could time out and cool the engine for the second.
      const hook = await runCli(
        ['route-hook'],
        sandbox.env({
          ...SECRETS,
          SYSTEM1_CONFIG: routed,
          SYSTEM1_LOG_LEVEL: 'DEBUG',
          SYSTEM1_ROUTING_BUDGET_MS: '10000',
        }),
        20_000,
        {
          session_id: 's-1',
          hook_event_name: 'UserPromptSubmit',
          cwd: repo,
          prompt,
        },
      );
      seen.push(hook.stdout, hook.stderr);
      if (fault === 'status-401') expect(hook.stderr).toContain('401'); // the refusal is logged, without the key
    }
    fake.fault = 'none';
    seen.push(readFileSync(routingLog, 'utf8'));

    // A calibration run writes files: scan them too.
    const data = path.join(sandbox.dir, 'data.jsonl');
    writeFileSync(data, readFileSync(path.join(ROOT, 'calibration', 'yes-no-seed.jsonl'), 'utf8'));
    const calibrate = await runCli(['calibrate', data, '--write', '--json'], sandbox.env(env));
    seen.push(calibrate.stdout, calibrate.stderr);
    for (const file of filesUnder(sandbox.dir))
      if (!file.endsWith('.toml') && !file.endsWith('.jsonl')) seen.push(readFileSync(file, 'utf8'));

    const everything = seen.join('\n');
    expect(everything).toContain('sweep-status-401'); // the scan really covers the replies
    expect(everything).toContain('invalid credentials: [redacted]'); // the echoes reached the replies, scrubbed
    expect(readFileSync(logFile, 'utf8')).toContain('[sweep-reset]');
    expect(readFileSync(routingLog, 'utf8').trim().split('\n')).toHaveLength(1); // the hook ran and logged (not when refused)
    // The Laya key's tail: what a JSON-escaped echo leaves readable once the reply's own JSON escapes it again.
    const lookedFor = [...[...Object.values(SECRETS), FILE_SECRET].flatMap(forms), LAYA_KEY.split('/')[1]];
    const hits = lookedFor.filter((form) => everything.includes(form));
    expect(hits).toEqual([]);
  } finally {
    await fake.stop();
  }
});
