// serve-http with real clients, recorded in bench/results/http-clients.json: Claude Code's CLI (`claude mcp
// add --transport http` with a bearer header, then `claude mcp list`), MCP Inspector's CLI (tools/list and
// tools/call over HTTP), both through test/plugin/check-http.sh, and the official conformance suite's server
// scenarios (all of them) against one replica, and against three behind haproxy when it is installed, each
// scenario recorded as passed, failed, or not applicable to a server with tools only and no sessions (the
// rule: bench/client-tools.js classifyScenario).
// The clients are pinned devDependencies (bench/client-tools.js; SYSTEM1_HTTP_CLIENTS_PREFIX to use another
// install of the same pins, installed there when missing). Needs a build (npm run build).
// Run: node bench/clients.js, or npm run bench -- clients (not part of the default run).
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { ROOT, isolatedEnv, save } = require('./lib');
const { install, locate, conformance, run } = require('./client-tools');
const {
  findExecutable,
  freePort,
  haproxyConfig,
  startHaproxy,
  startReplica,
  waitForStates,
  writeConfig,
} = require('./load-balancer');

/** `claude mcp list` runs (each against a new server) whose "✔ Connected" is counted. */
const CLAUDE_RUNS = 10;

/** test/plugin/check-http.sh: each "ok: ..." / "FAIL: ..." line it prints as a check. */
async function realClients(tools) {
  if (!tools.claude) return { skipped: "Claude Code's CLI is not installed (see the install errors)" };
  const script = path.join(ROOT, 'test', 'plugin', 'check-http.sh');
  const result = await run('sh', [script, tools.claude, ...(tools.inspector ? [tools.inspector] : [])]);
  const checks = [...result.stdout.matchAll(/^(ok|FAIL): (.*)$/gm)].map(([, status, what]) => ({
    check: what,
    passed: status === 'ok',
  }));
  if (result.code !== 0) console.log(result.stdout, result.stderr);
  // Whether Claude Code gets the tools can vary from run to run (a connection race): count it over more runs.
  let connected = checks.find((check) => check.check.startsWith('claude mcp list shows system1 Connected'))?.passed
    ? 1
    : 0;
  for (let i = 1; i < CLAUDE_RUNS; i++) {
    const again = await run('sh', [script, tools.claude]);
    if (/^ok: claude mcp list shows system1 Connected/m.test(again.stdout)) connected++;
  }
  return {
    script: 'test/plugin/check-http.sh',
    exit_code: result.code,
    inspector_node: tools.inspector ? process.version : null,
    checks,
    claude_connected_with_tools: { runs: CLAUDE_RUNS, connected },
  };
}

/** The same suite through haproxy (examples/haproxy.cfg) in front of three replicas. */
async function conformanceBehindHaproxy(tools, haproxy) {
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-clients-haproxy-'));
  const frontendPort = await freePort();
  // The balancer's name and origin are what clients use, so each replica answers to them (docs/team-deployment.md).
  const env = isolatedEnv({
    SYSTEM1_PROVIDER: 'mock',
    SYSTEM1_HTTP_ALLOWED_HOSTS: `127.0.0.1:${frontendPort}`,
    SYSTEM1_HTTP_ALLOWED_ORIGINS: `http://127.0.0.1:${frontendPort}`,
  });
  const replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  const statsSocket = path.join(dir, 'haproxy.sock');
  const balancer = startHaproxy(
    haproxy,
    writeConfig(
      path.join(dir, 'haproxy.cfg'),
      haproxyConfig({ frontendPort, replicaPorts: replicas.map((r) => r.port), statsSocket }),
    ),
  );
  try {
    await waitForStates(
      statsSocket,
      (states) => Object.keys(states).length === 3 && Object.values(states).every((state) => state === 'UP'),
    );
    return await conformance(tools, `http://127.0.0.1:${frontendPort}/mcp`);
  } finally {
    await balancer.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const installErrors = install();
  for (const { name, error } of installErrors) console.error(`could not install ${name}:\n${error}`);
  const tools = locate();
  const result = { tools: tools.versions, install_errors: installErrors };

  console.log('\n== Claude Code and MCP Inspector (test/plugin/check-http.sh)');
  result.clients = await realClients(tools);
  for (const check of result.clients.checks ?? []) console.log(`${check.passed ? 'ok  ' : 'FAIL'} ${check.check}`);
  if (result.clients.claude_connected_with_tools)
    console.log(
      `claude mcp list: Connected with its tools in ${result.clients.claude_connected_with_tools.connected} of ${CLAUDE_RUNS} runs`,
    );

  if (tools.conformance) {
    console.log('\n== the conformance suite, one replica (loopback, no token: the suite sends no header)');
    const server = await startReplica(isolatedEnv({ SYSTEM1_PROVIDER: 'mock' }));
    try {
      result.conformance = await conformance(tools, server.url);
    } finally {
      await server.stop();
    }
    console.table(
      Object.fromEntries(
        Object.entries(result.conformance.scenarios).map(([name, s]) => [
          name,
          { outcome: s.outcome, reason: s.reason.slice(0, 90) },
        ]),
      ),
    );
    const haproxy = findExecutable('haproxy');
    if (haproxy) {
      console.log('\n== the conformance suite through haproxy, three replicas');
      const behind = await conformanceBehindHaproxy(tools, haproxy);
      // The same outcome per scenario as one replica is the point; the detail is above.
      result.conformance_behind_haproxy = {
        counts: behind.counts,
        outcomes: Object.fromEntries(
          Object.entries(behind.scenarios).map(([name, s]) => [
            name,
            s.outcome === 'pass' ? s.outcome : `${s.outcome}: ${s.reason}`,
          ]),
        ),
      };
      console.log(behind.counts);
    } else {
      result.conformance_behind_haproxy = { skipped: 'haproxy is not installed (apt-get install haproxy)' };
    }
  } else {
    result.conformance = { skipped: 'the conformance suite or Node 22 is not installed (see the install errors)' };
  }
  save('http-clients', result);
  const sometimesUnconnected =
    result.clients.claude_connected_with_tools && result.clients.claude_connected_with_tools.connected < CLAUDE_RUNS
      ? 1
      : 0;
  const failed =
    sometimesUnconnected +
    (result.clients.checks ?? []).filter((check) => !check.passed).length +
    (result.conformance.counts?.fail ?? 0) +
    (result.conformance_behind_haproxy?.counts?.fail ?? 0);
  if (failed > 0 || installErrors.length > 0 || result.clients.exit_code) {
    console.error(
      `\n${failed} check(s) or scenario(s) failed${installErrors.length ? `; ${installErrors.length} client(s) could not be installed` : ''}`,
    );
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
