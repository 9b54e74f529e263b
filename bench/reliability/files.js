// Probes of config and files a user (or a planted file) can get wrong: provider names and keys that are
// Object.prototype members, special files (a FIFO, /dev/zero, a 1 GiB sparse log) where the gateway expects
// a small regular file, a huge prompt on the route hook's stdin, control characters in a hook's prompt_id.
'use strict';
const { execFileSync } = require('node:child_process');
const { closeSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } = require('node:fs');
const path = require('node:path');
const { RAW_CONTROL, sandbox, run, jsonLines, mib } = require('./child');
const { FORGED_ID, session, countById, INITIALIZE } = require('./mcp');

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const DESIGN = 'Design the architecture for the new billing service and decide between a queue and cron jobs';
const GIB = 1024 * 1024 * 1024;

function fifo(dir, name) {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/**
 * Starts `mcp` with `env`, asks `calls` in turn ([name, args]); what came back for each: { answered,
 * jsonrpc_error, body }. `initialize_answered` says whether the handshake got that far.
 */
async function ask(main, env, calls) {
  const s = session(main, env);
  const initialized = await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
  const answers = [];
  if (initialized) {
    for (const [i, [name, args]] of calls.entries()) {
      s.send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } });
      const answered = await s.until((replies) => countById(replies, i + 1) >= 1);
      const reply = s.replies().find((message) => message.id === i + 1);
      answers.push({
        answered,
        jsonrpc_error: reply?.error?.code ?? null,
        body: reply?.result?.structuredContent ?? null,
      });
      if (!answered) break;
    }
  }
  const result = await s.finish();
  return { initialize_answered: initialized, answers, result };
}

/** Health under a config; whether it failed as a JSON-RPC error or reported a config error. */
async function healthUnder(main, toml, extraEnv = {}) {
  const box = sandbox();
  try {
    const config = box.file('config.toml', toml);
    const { answers } = await ask(main, box.env({ SYSTEM1_CONFIG: config, ...extraEnv }), [['system1_health', {}]]);
    const [health] = answers;
    const errors = health?.body?.config_errors ?? [];
    return {
      answered: Boolean(health?.answered),
      jsonrpc_error: health?.jsonrpc_error ?? null,
      status: health?.body?.status ?? null,
      config_errors: errors.map((error) => error.key),
    };
  } finally {
    box.dispose();
  }
}

/** Counts, over cases, how each went: a config error (the fix), a -32603 failure, or a silent pass. */
function tally(cases) {
  return {
    cases: cases.length,
    config_errors: cases.filter((c) => c.config_errors.length > 0).length,
    internal_errors: cases.filter((c) => c.jsonrpc_error === -32603).length,
    silently_ok: cases.filter((c) => c.status === 'ok' && c.config_errors.length === 0).length,
    by_case: Object.fromEntries(
      cases.map((c) => [c.name, { status: c.status, jsonrpc_error: c.jsonrpc_error, config_errors: c.config_errors }]),
    ),
  };
}

/** Provider names that are Object.prototype members (issue 17: every call -32603, "not iterable"). */
async function prototypeProviderNames(main) {
  const cases = [
    ['provider = "constructor"', '[gateway]\nprovider = "constructor"\n'],
    ['fallback = ["__proto__"]', '[gateway]\nprovider = "mock"\nfallback = ["__proto__"]\n'],
    ['SYSTEM1_FALLBACK=hasOwnProperty', '[gateway]\nprovider = "mock"\n', { SYSTEM1_FALLBACK: 'hasOwnProperty' }],
    [
      '[providers.constructor]',
      '[gateway]\nprovider = "mock"\n[providers.constructor]\nendpoint = "http://127.0.0.1:9"\n',
    ],
  ];
  const results = [];
  for (const [name, toml, env] of cases) results.push({ name, ...(await healthUnder(main, toml, env)) });
  return tally(results);
}

/** Sections and keys named like Object.prototype members (issue 17: passed silently where `bogus` is an error). */
async function prototypeKeys(main) {
  const cases = [
    ['[providers.mock] constructor = 5', '[gateway]\nprovider = "mock"\n[providers.mock]\nconstructor = 5\n'],
    ['[constructor]', '[gateway]\nprovider = "mock"\n[constructor]\nx = 1\n'],
    ['[gateway.valueOf]', '[gateway]\nprovider = "mock"\n[gateway.valueOf]\nx = 1\n'],
    ['[providers.__proto__]', '[gateway]\nprovider = "mock"\n[providers.__proto__]\nendpoint = "http://127.0.0.1:9"\n'],
  ];
  const results = [];
  for (const [name, toml] of cases) results.push({ name, ...(await healthUnder(main, toml)) });
  return tally(results);
}

/** SYSTEM1_CONFIG naming a special file: is `initialize` answered, and is the file reported? */
async function specialConfig(main, make) {
  const box = sandbox();
  try {
    const file = make(box);
    const { initialize_answered, answers, result } = await ask(main, box.env({ SYSTEM1_CONFIG: file }), [
      ['system1_health', {}],
    ]);
    const health = answers[0]?.body;
    return {
      initialize_answered,
      health_status: health?.status ?? null,
      reported: (health?.config_errors ?? []).some((error) => String(error.message).includes(file)),
      ended: result.ended,
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

const fifoConfig = (main) => specialConfig(main, (box) => fifo(box.dir, 'config.toml'));
const devZeroConfig = (main) => specialConfig(main, () => '/dev/zero');

/** A FIFO as the install dir's calibration.json: is the first decision answered? */
async function fifoCalibration(main) {
  const box = sandbox();
  try {
    fifo(path.join(box.dir, 'install'), 'calibration.json');
    const { initialize_answered, answers, result } = await ask(main, box.env({ SYSTEM1_PROVIDER: 'mock' }), [
      ['system1_decide', ASK],
    ]);
    return {
      initialize_answered,
      decide_answered: Boolean(answers[0]?.answered),
      status: answers[0]?.body?.status ?? null,
      ended: result.ended,
    };
  } finally {
    box.dispose();
  }
}

// ---- the hooks --------------------------------------------------------------------------------------------

/** Routing on, the laya fake as the engine, the routing log at `logFile` (a path, or made by the probe). */
function hookSetup(
  box,
  engineUrl,
  { logFile = path.join(box.dir, 'logs', 'routing.jsonl'), gateway = '', config } = {},
) {
  const repo = path.join(box.dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const file =
    config ??
    box.file(
      'config.toml',
      `[gateway]\nprovider = "laya"\n${gateway}\n[providers.laya]\nendpoint = "${engineUrl}"\n[routing]\nenabled = true\nlog_dirs = ["${repo}"]\nlog_file = "${logFile}"\n`,
    );
  return { repo, logFile, env: box.env({ SYSTEM1_CONFIG: file }) };
}

const hookInput = (repo, extra = {}) =>
  JSON.stringify({
    session_id: 's-1',
    hook_event_name: 'UserPromptSubmit',
    prompt_id: 'p-1',
    cwd: repo,
    prompt: DESIGN,
    ...extra,
  });

const hinted = (stdout) =>
  jsonLines(stdout).messages.some((message) => /pass model/.test(message?.hookSpecificOutput?.additionalContext ?? ''));

/** The route hook with SYSTEM1_CONFIG on a FIFO (issue 17: still running at 8 s). */
async function routeHookFifoConfig(main, engineUrl) {
  const box = sandbox();
  try {
    const { repo, env } = hookSetup(box, engineUrl, { config: fifo(box.dir, 'config.toml') });
    const result = await run(main, ['route-hook'], { env, stdin: hookInput(repo) });
    return { exit_code: result.exit_code, ended: result.ended };
  } finally {
    box.dispose();
  }
}

/** The route hook with [routing] log_file on a FIFO: does it still give its hint and exit? */
async function routeHookFifoLog(main, engineUrl) {
  const box = sandbox();
  try {
    const { repo, env } = hookSetup(box, engineUrl, { logFile: fifo(box.dir, 'routing.jsonl') });
    const result = await run(main, ['route-hook'], { env, stdin: hookInput(repo) });
    return { exit_code: result.exit_code, ended: result.ended, hinted: hinted(result.stdout) };
  } finally {
    box.dispose();
  }
}

/** The route hook's prompt_id with terminal controls, and a gateway log_file: raw on stderr or in the file? */
async function routeHookForgedPromptId(main, engineUrl) {
  const box = sandbox();
  try {
    const logFile = path.join(box.dir, 'gateway.log');
    const { repo, env } = hookSetup(box, engineUrl, { gateway: `log_file = "${logFile}"` });
    const result = await run(main, ['route-hook'], { env, stdin: hookInput(repo, { prompt_id: FORGED_ID }) });
    let logged = '';
    try {
      logged = readFileSync(logFile, 'utf8');
    } catch {
      // none written
    }
    return {
      exit_code: result.exit_code,
      id_logged: /FAKE/.test(result.stderr + logged),
      raw_controls_on_stderr: RAW_CONTROL.test(result.stderr),
      raw_controls_in_log_file: RAW_CONTROL.test(logged),
    };
  } finally {
    box.dispose();
  }
}

/** A 60 MB paste as the prompt: the hook's peak RSS and whether it exits before the kill timer. */
async function routeHookHugePrompt(main, engineUrl) {
  const box = sandbox();
  try {
    const { repo, env } = hookSetup(box, engineUrl);
    const prompt = `${DESIGN} `.repeat(Math.ceil((60 * 1024 * 1024) / (DESIGN.length + 1)));
    const result = await run(main, ['route-hook'], { env, stdin: hookInput(repo, { prompt }) });
    return {
      input_mb: mib(prompt.length / 1e6),
      exit_code: result.exit_code,
      ended: result.ended,
      hinted: hinted(result.stdout),
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

/** A 380,000-character prompt: how big its routing-log entry is, and the modes of the new log and its folder. */
async function routeHookLoggedPrompt(main, engineUrl) {
  const box = sandbox();
  try {
    const { repo, env, logFile } = hookSetup(box, engineUrl);
    const prompt = `${DESIGN}. `.repeat(4000);
    const result = await run(main, ['route-hook'], { env: { ...env }, stdin: hookInput(repo, { prompt }) });
    const entry =
      readFileSync(logFile, 'utf8')
        .split('\n')
        .find((line) => line.includes('"routing"')) ?? '';
    const mode = (file) => `0${(statSync(file).mode & 0o777).toString(8)}`;
    return {
      prompt_chars: prompt.length,
      exit_code: result.exit_code,
      hinted: hinted(result.stdout),
      entry_bytes: Buffer.byteLength(entry),
      log_mode: mode(logFile),
      log_dir_mode: mode(path.dirname(logFile)),
    };
  } finally {
    box.dispose();
  }
}

/** `size` bytes of holes (NUL bytes, one endless line), then `text` on a line of its own. */
function sparseThen(file, size, text) {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `\n${text}`, size);
  } finally {
    closeSync(fd);
  }
  return file;
}

const routingEntries = (count) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      ts: '2026-11-30T09:14:02.118Z',
      session_id: 's-1',
      prompt_id: `p-${i}`,
      cwd: '/home/dev/shop',
      source: 'routing',
      prompt: 'Design the billing service',
      provider: 'laya',
      tier: 'opus',
      hinted: false,
    }),
  ).join('\n') + '\n';

/** session-check (the SessionStart hook, 10 s budget) on a routing log that is a FIFO. */
async function sessionCheckFifo(main, engineUrl) {
  const box = sandbox();
  try {
    const { env } = hookSetup(box, engineUrl, { logFile: fifo(box.dir, 'routing.jsonl') });
    const result = await run(main, ['session-check'], { env });
    return { exit_code: result.exit_code, ended: result.ended };
  } finally {
    box.dispose();
  }
}

/** Real routing-log entries after the sparse gigabyte. */
const ENTRIES = 40;

/** session-check on a 1 GiB sparse routing log with ENTRIES real entries at its end. */
async function sessionCheckSparse(main, engineUrl) {
  const box = sandbox();
  try {
    const logFile = sparseThen(path.join(box.dir, 'routing.jsonl'), GIB, routingEntries(ENTRIES));
    const { env } = hookSetup(box, engineUrl, { logFile });
    const result = await run(main, ['session-check'], { env });
    return {
      log_gib: GIB / 1024 ** 3,
      entries_at_the_end: ENTRIES,
      exit_code: result.exit_code,
      ended: result.ended,
      counted_the_prompts: new RegExp(`\\b${ENTRIES} logged prompts`).test(result.stdout),
      peak_rss_mib: mib(result.peak_rss_mib),
    };
  } finally {
    box.dispose();
  }
}

/** The hook's cooldown file says laya is skipped for a year (a stale file, a clock stepped back): is it still? */
async function routeHookFarCooldown(main, engineUrl) {
  const box = sandbox();
  try {
    const { repo, env } = hookSetup(box, engineUrl);
    const cooldownFile = path.join(env.SYSTEM1_INSTALL_DIR, 'cooldown.json');
    mkdirSync(env.SYSTEM1_INSTALL_DIR, { recursive: true });
    writeFileSync(cooldownFile, JSON.stringify({ laya: { failures: 3, until: Date.now() + 365 * 24 * 3600 * 1000 } }));
    const result = await run(main, ['route-hook'], { env, stdin: hookInput(repo) });
    let until = null;
    try {
      until = JSON.parse(readFileSync(cooldownFile, 'utf8')).laya?.until ?? null;
    } catch {
      // gone: no cooldown left
    }
    return {
      exit_code: result.exit_code,
      hinted: hinted(result.stdout),
      cooldown_left_s: until === null ? 0 : Math.max(0, Math.round((until - Date.now()) / 1000)),
    };
  } finally {
    box.dispose();
  }
}

module.exports = {
  routeHookFarCooldown,
  prototypeProviderNames,
  prototypeKeys,
  fifoConfig,
  devZeroConfig,
  fifoCalibration,
  routeHookFifoConfig,
  routeHookFifoLog,
  routeHookForgedPromptId,
  routeHookHugePrompt,
  routeHookLoggedPrompt,
  sessionCheckFifo,
  sessionCheckSparse,
};
