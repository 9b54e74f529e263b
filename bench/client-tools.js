// The real MCP clients serve-http is checked with, kept out of package.json (big, platform-specific): Claude
// Code's CLI, MCP Inspector's CLI and the official conformance suite (with the Node 22 it needs, from the
// npm registry as the node-<platform>-<arch> package, so the system Node is untouched). bench/clients.js
// installs them on demand into one prefix; test/e2e/http-clients.spec.ts uses them when they are there.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { execFile, execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

/** Pinned: Claude Code 2.1.197 is what npm picks on Node 20; the others as checked with it. */
const NODE22 = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const PINS = {
  '@anthropic-ai/claude-code': '2.1.197',
  '@modelcontextprotocol/inspector': '2.12.0',
  '@modelcontextprotocol/conformance': '0.1.16',
  [NODE22]: '22.23.5',
};

/** Where they go: SYSTEM1_HTTP_CLIENTS_PREFIX, or one folder in the temp dir that later runs reuse. */
const PREFIX = path.resolve(process.env.SYSTEM1_HTTP_CLIENTS_PREFIX || path.join(tmpdir(), 'system1-http-clients'));

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
  const node22 = [path.join(packageDir(prefix, NODE22), 'bin', 'node'), path.join(packageDir(prefix, NODE22), 'bin', 'node.exe')].find((file) => existsSync(file));
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
    execFileSync(npm[0], [...npm.slice(1), 'install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', ...specs], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', shell: process.platform === 'win32' && npm[0] === 'npm' });
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
  if (failures.length === 0 && successes.length > 0) return { outcome: 'pass', reason: `${successes.length} check(s) passed` };
  if (failures.length === 0) {
    const said = checks.filter((check) => check.status === 'WARNING').map((check) => check.details?.message ?? check.description);
    const stateless = said.length > 0 && said.every((message) => /session ID/i.test(message));
    return stateless
      ? { outcome: 'not_applicable', reason: `stateless server (no session id; JSON answers, no SSE stream): ${said.join('; ')}` }
      : { outcome: 'fail', reason: `no check passed: ${said.join('; ') || 'no checks'}` };
  }
  const reasons = failures.map((check) => notApplicable(name, check.errorMessage ?? '', capabilities));
  if (reasons.every(Boolean)) return { outcome: 'not_applicable', reason: [...new Set(reasons)].join('; ') };
  return { outcome: 'fail', reason: failures.map((check) => `${check.id}: ${check.errorMessage ?? check.description}`).join('; ') };
}

/** Scenarios that exercise a capability, by name: they do not apply to a server that does not declare it. */
const CAPABILITY_OF_SCENARIO = [
  [/^resources-/, 'resources'],
  [/^prompts-/, 'prompts'],
  [/^completion-/, 'completions'],
  [/logging/, 'logging'],
];

/** Why a failed check does not apply to this server, or undefined when it is a real failure. */
function notApplicable(name, message, capabilities) {
  const fixture = /unknown tool "(test_\w+)"|Tool '(\w+)' not found/.exec(message);
  if (fixture) return `needs the reference server's fixture tool ${fixture[1] ?? fixture[2]}`;
  if (/-32601|Method not found/.test(message)) {
    const capability = CAPABILITY_OF_SCENARIO.find(([pattern]) => pattern.test(name))?.[1];
    if (capability && !(capability in (capabilities ?? {}))) return `the server does not declare the ${capability} capability (Method not found is the right answer)`;
  }
  return undefined;
}

/** A command's exit code and output (never rejects). */
const run = (file, args, options = {}) =>
  new Promise((resolve) => execFile(file, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr })));

/** What the server declares at initialize (the conformance rule needs it). */
async function capabilitiesOf(url) {
  const client = new Client({ name: 'system1-bench-clients', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const capabilities = client.getServerCapabilities();
  await client.close();
  return capabilities;
}

/**
 * The conformance suite's server scenarios (all of them) against `url`, each classified; `tools` from locate().
 * @param {{ node22?: string, conformance?: string }} tools
 * @param {string} url
 */
async function conformance(tools, url) {
  const out = mkdtempSync(path.join(tmpdir(), 'system1-conformance-'));
  try {
    const capabilities = await capabilitiesOf(url);
    // Exit 1 whenever a scenario fails, which fixtures of the reference server always do: read the files.
    const result = await run(tools.node22, [tools.conformance, 'server', '--url', url, '--suite', 'all', '-o', out], { cwd: out, timeout: 600_000 });
    const scenarios = {};
    for (const dir of readdirSync(out).sort()) {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
      if (!name) continue;
      const checks = JSON.parse(readFileSync(path.join(out, dir, 'checks.json'), 'utf8'));
      scenarios[name] = { ...classifyScenario(name, checks, capabilities), checks: checks.filter((check) => check.status !== 'INFO').map((check) => ({ id: check.id, status: check.status, ...(check.errorMessage && { error: check.errorMessage }) })) };
    }
    if (Object.keys(scenarios).length === 0) throw new Error(`the conformance suite wrote no results (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    const count = (outcome) => Object.values(scenarios).filter((scenario) => scenario.outcome === outcome).length;
    return { suite: 'all', server_capabilities: capabilities, counts: { pass: count('pass'), fail: count('fail'), not_applicable: count('not_applicable'), total: Object.keys(scenarios).length }, scenarios };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}


module.exports = { PINS, PREFIX, NODE22, locate, install, classifyScenario, conformance, run };
