#!/usr/bin/env node
// The suite audited by mutation: each mutation below breaks one rule of the product on purpose (an exact
// snippet of src/ replaced), in a copy of this working tree, which is then built and tested with the test files
// likely to catch it. It reports which tests failed (caught it) and exits 1 when a mutation is caught by
// fewer than two tests, or when a snippet is no longer in its file (so a mutation never silently tests nothing).
//
//   node scripts/mutations.js [name ...]     all mutations, or the named ones
//   node scripts/mutations.js --check        only checks that every snippet is still in its file
//
// CPU-heavy (a build and a few e2e files per mutation): not part of .ci/run.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const LEAST_CATCHING_TESTS = 2;

const COOLDOWN_TESTS = [
  'test/unit/decisions/cooldown.spec.ts',
  'test/unit/decisions/cooldown-pipeline.spec.ts',
  'test/unit/decisions/engine-recovery.spec.ts',
  'test/e2e/route-hook-cooldown.spec.ts',
];
const HTTP_TESTS = [
  'test/unit/http-server/http-gateway.spec.ts',
  'test/unit/http-server/guards.spec.ts',
  'test/e2e/serve-http.spec.ts',
  'test/e2e/serve-http-attacks.spec.ts',
];
const ASK_TESTS = ['test/unit/mcp/ask.service.spec.ts', 'test/unit/mcp/tools/ask-tool.spec.ts'];
const CALLER_TESTS = [
  'test/unit/library/caller-policy.spec.ts',
  'test/unit/decisions/chosen-models.spec.ts',
  'test/unit/decisions/cooldown-pipeline.spec.ts',
  'test/e2e/caller-policy.spec.ts',
  'test/e2e/serve-http-hostile-caller.spec.ts',
];

/** Each mutation: the file, the exact snippet, what replaces it, and the tests to run. */
const MUTATIONS = [
  {
    name: 'a caller may choose any model (round three)',
    file: 'src/decisions/callers/caller-models.ts',
    from: 'if (rule.allowed.includes(ANY_MODEL)) return undefined;',
    to: 'return undefined;',
    tests: CALLER_TESTS,
  },
  {
    // The cooldown itself refuses such codes too (see 'refusals counted toward cooldown'): what this rule
    // holds alone is that no other replica is asked for a request the gateway refused or never sent.
    name: "a request-side problem counts as the engine's failure (round three)",
    file: 'src/decisions/pools/replica-runner.ts',
    from: 'const engineFailed = !copy.notSent && !signal?.aborted && ERROR_MEANINGS[error.code].enginesFault;',
    to: 'const engineFailed = !signal?.aborted;',
    tests: ['test/unit/decisions/pools.spec.ts', ...CALLER_TESTS, ...COOLDOWN_TESTS],
  },
  {
    name: 'a request holds a decision slot while its body arrives (round three)',
    file: 'src/http-server/http-gateway.ts',
    from: '      return refuse(413, tooLargeMessage(this.deps.limits.maxBodyBytes));\n    let body: Buffer;',
    to: "      return refuse(413, tooLargeMessage(this.deps.limits.maxBodyBytes));\n    this.mcpInFlight++;\n    res.once('close', () => this.answered());\n    let body: Buffer;",
    tests: HTTP_TESTS,
  },
  {
    name: 'cooldown never starting',
    file: 'src/decisions/pools/cooldown.service.ts',
    from: 'const cools = ERROR_MEANINGS[code].coolsAtOnce || failures >= FAILURES_BEFORE_COOLDOWN;',
    to: 'const cools = false;',
    tests: COOLDOWN_TESTS,
  },
  {
    name: 'trial never claimed',
    file: 'src/decisions/pools/cooldown.service.ts',
    from: 'this.write(key, { ...entry!, until: this.now() + hold, trial: true });',
    to: 'void hold;',
    tests: COOLDOWN_TESTS,
  },
  {
    name: 'refusals counted toward cooldown',
    file: 'src/decisions/pools/cooldown.service.ts',
    from: 'if (this.capMs === 0 || !ERROR_MEANINGS[code].enginesFault) return false;',
    to: 'if (this.capMs === 0) return false;',
    tests: COOLDOWN_TESTS,
  },
  {
    name: 'the host guard allowing all',
    file: 'src/common/http/host-guard.ts',
    from: '  allows(hostHeader: string | undefined): boolean {\n',
    to: "  allows(hostHeader: string | undefined): boolean {\n    if (typeof hostHeader !== 'symbol') return true;\n",
    tests: [
      'test/unit/http-server/guards.spec.ts',
      'test/unit/openai-router/router-access.spec.ts',
      'test/e2e/serve-http.spec.ts',
    ],
  },
  {
    name: '--write not saving',
    file: 'src/commands/calibrate/calibrate.command.ts',
    from: 'if (target && report.fits.length > 0) {',
    to: 'if (target && report.fits.length < 0) {',
    tests: [
      'test/unit/calibration/report-parts.spec.ts',
      'test/e2e/calibrate.spec.ts',
      'test/e2e/calibrate-figures.spec.ts',
    ],
  },
  {
    name: 'fits never applied',
    file: 'src/calibration/calibration.service.ts',
    from: 'if (!fit) return unchanged;',
    to: "if (!fit || question.text !== '(never asked)') return unchanged;",
    tests: [
      'test/unit/calibration/fit-store.spec.ts',
      'test/unit/calibration/shipped-fits.spec.ts',
      'test/unit/library/decide.spec.ts',
      'test/e2e/calibrate.spec.ts',
    ],
  },
  {
    name: 'system1_ask dropping a question',
    file: 'src/mcp/ask/ask.service.ts',
    from: 'for (const { id, ...question } of request.questions) questions[id] = question;',
    to: 'for (const { id, ...question } of request.questions.slice(0, -1)) questions[id] = question;',
    tests: ASK_TESTS,
  },
  {
    name: 'system1_ask dropping its images',
    file: 'src/mcp/ask/ask.service.ts',
    from: '...(request.images && { images: request.images }),',
    to: '',
    tests: ASK_TESTS,
  },
  {
    name: 'system1_ask dropping longContext',
    file: 'src/mcp/ask/ask.service.ts',
    from: '...(request.longContext && { longContext: true }),',
    to: '',
    tests: ASK_TESTS,
  },
  {
    name: 'system1_ask dropping fallbacks',
    file: 'src/mcp/ask/ask.service.ts',
    from: '...(meta.attempts && { fallbacks: meta.attempts }),',
    to: '',
    tests: ASK_TESTS,
  },
  {
    name: 'the token check passing all',
    file: 'src/http-server/callers/caller-access.ts',
    from: 'const named = token === undefined ? undefined : this.tokens.identify(token);',
    to: 'const named = this.tokens.names[0];',
    tests: HTTP_TESTS,
  },
  {
    name: '/metrics without the token',
    file: 'src/http-server/http-gateway.ts',
    from: '    const identified = await this.deps.access.identify(req);',
    to: "    if (route === '/metrics') return this.metrics(res);\n    const identified = await this.deps.access.identify(req);",
    tests: HTTP_TESTS,
  },
  {
    name: 'the pause ignored',
    file: 'src/decisions/pipeline/decision-gate.ts',
    from: 'if (this.pause.isPaused())\n',
    to: 'if (this.pause.isPaused() && false)\n',
    tests: ['test/unit/mcp/decide.service.spec.ts', 'test/unit/surfaces-agree.spec.ts', 'test/e2e/pause.spec.ts'],
  },
  {
    name: 'the threshold never abstaining',
    file: 'src/decisions/pipeline/engine-attempts.ts',
    from: 'belowThreshold: answer.confidence !== undefined && answer.confidence < threshold,',
    to: 'belowThreshold: false,',
    tests: [
      'test/unit/mcp/decide.service.spec.ts',
      'test/unit/hostile-input.spec.ts',
      'test/unit/surfaces-agree.spec.ts',
      'test/unit/mcp/tools/threshold.spec.ts',
    ],
  },
  {
    name: 'the early 413 disabled',
    file: 'src/http-server/http-gateway.ts',
    from: 'if (declaredTooLarge(req, this.deps.limits.maxBodyBytes))\n',
    to: 'if (declaredTooLarge(req, this.deps.limits.maxBodyBytes) && false)\n',
    tests: HTTP_TESTS,
  },
  {
    name: 'the in-flight cap disabled',
    file: 'src/http-server/http-gateway.ts',
    from: 'if (this.mcpInFlight < this.deps.limits.maxInFlight) return undefined;',
    to: 'if (this.mcpInFlight >= 0) return undefined;',
    tests: HTTP_TESTS,
  },
  {
    // The verdict that spares class-validator's own call: a request a validator refuses must still be refused.
    name: 'the DTO verdict passes what a validator refused',
    file: 'src/common/dto-verdict.ts',
    from: '      if (validator.validate(value, args) !== true) return false;',
    to: '      void validator.validate(value, args);',
    tests: [
      'test/unit/common/dto-verdict.spec.ts',
      'test/unit/hostile-input.spec.ts',
      'test/unit/mcp/decide.service.spec.ts',
      'test/unit/mcp/ask.service.spec.ts',
      'test/unit/library/hostile-library.spec.ts',
    ],
  },
  {
    // Round four: jose's clockTolerance is in seconds; read as milliseconds, a token stays valid hours past exp.
    name: 'clock_skew_s read as milliseconds',
    file: 'src/http-server/oauth/token-verifier.ts',
    from: 'clockTolerance: this.settings.clock_skew_s,',
    to: 'clockTolerance: this.settings.clock_skew_s * 1000,',
    tests: ['test/unit/http-server/token-verifier.spec.ts'],
  },
  {
    // Round four: a caller's `tools` hold for every tool, not only the two that ask an engine.
    name: "a caller's tools held only for the tools that decide",
    file: 'src/http-server/callers/caller-access.ts',
    from: '    if (!caller.policy.tools.has(tool)) {',
    to: '    if (DECISION_TOOLS.has(tool) && !caller.policy.tools.has(tool)) {',
    tests: ['test/unit/http-server/caller-access.spec.ts', 'test/e2e/serve-http-callers.spec.ts'],
  },
  {
    // Round four: a quiet spell saves at most hedge_budget * 100 hedges (1000 at 0.1 with the cap inverted).
    name: "the hedge budget's savings cap inverted",
    file: 'src/decisions/pools/hedging.service.ts',
    from: 'this.cap = Math.max(1, share * 100);',
    to: 'this.cap = Math.max(1, 100 / share);',
    tests: ['test/unit/decisions/hedge-budget.spec.ts', 'test/unit/decisions/hedging.spec.ts'],
  },
  {
    name: "the rate limiter's burst not capped",
    file: 'src/http-server/callers/rate-limiter.ts',
    from: 'const tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);',
    to: 'const tokens = bucket.tokens + (now - bucket.at) * perMs;',
    tests: ['test/unit/http-server/caller-access.spec.ts', 'test/unit/http-server/http-gateway.spec.ts'],
  },
  {
    name: 'the Hub token sent by host name, not origin',
    file: 'src/local-engines/hub/hub-endpoint.ts',
    from: 'url.origin === this.origin ?',
    to: 'url.hostname === new URL(this.origin).hostname ?',
    tests: ['test/unit/local-engines/hub-endpoint.spec.ts', 'test/unit/local-engines/model-pull.spec.ts'],
  },
  {
    name: "a label's tier unchecked",
    file: 'src/routing/routing-labels.ts',
    from: "if (typeof value.tier !== 'string' || !TIERS.includes(value.tier as Tier))\n    return",
    to: 'if (value.tier === Symbol.iterator)\n    return',
    tests: ['test/unit/routing/routing-labels.spec.ts', 'test/e2e/label.spec.ts'],
  },
  {
    // A 2026-07-28 request the SDK's classifier refuses (an Mcp-Method the body contradicts) handed to the
    // 2025 transport, which answers it with its own error instead of -32020.
    name: 'the 2026-07-28 header/body mismatch served by the 2025 transport',
    file: 'src/http-server/mcp-http.ts',
    from: "if (route.kind !== 'legacy') return modern(req, res, body);",
    to: "if (route.kind === 'modern') return modern(req, res, body);",
    tests: ['test/unit/http-server/mcp-http.spec.ts', 'test/e2e/protocol-eras.spec.ts'],
  },
];

/** Replaces the one occurrence of `from` in `text`; throws when there is none, or more than one. */
function mutate(text, { name, file, from, to }) {
  const at = text.indexOf(from);
  if (at < 0)
    throw new Error(`mutation "${name}": its snippet is no longer in ${file}; update scripts/mutations.js:\n${from}`);
  if (text.indexOf(from, at + 1) >= 0)
    throw new Error(`mutation "${name}": its snippet occurs more than once in ${file}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** This working tree (tracked and new files, not ignored ones) copied to a temp dir, node_modules linked. */
function copyTree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'system1-mutations-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    // A worktree's node_modules is a symlink, which git lists as an untracked file: it is linked below.
    if (file === 'node_modules') continue;
    const source = path.join(ROOT, file);
    if (!fs.existsSync(source)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(source, path.join(dir, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const reranker = path.join(ROOT, 'engines', 'reranker', 'node_modules');
  if (fs.existsSync(reranker)) fs.symlinkSync(reranker, path.join(dir, 'engines', 'reranker', 'node_modules'));
  return dir;
}

function run(dir, command, args) {
  const result = spawnSync(command, args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { code: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

/** The full names of the tests that failed (and files that failed to load), from jest's JSON results. */
function failedTests(resultsFile) {
  if (!fs.existsSync(resultsFile)) return ['(jest wrote no results)'];
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const failed = [];
  for (const suite of results.testResults) {
    const file = path.relative(path.dirname(resultsFile), suite.name);
    const tests = suite.assertionResults.filter((test) => test.status === 'failed');
    if (suite.status === 'failed' && suite.assertionResults.length === 0)
      failed.push(`${file}: (the file failed to load)`);
    for (const test of tests) failed.push(`${file}: ${test.fullName}`);
  }
  return failed;
}

function main() {
  const check = process.argv.includes('--check');
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--check');
  const chosen = wanted.length === 0 ? MUTATIONS : MUTATIONS.filter((mutation) => wanted.includes(mutation.name));
  const known = new Set(MUTATIONS.map((mutation) => mutation.name));
  const unknown = wanted.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`no mutation named ${unknown.join(', ')}; known: ${[...known].join('; ')}`);
  // Every snippet is checked before any build, so a stale one fails at once.
  for (const mutation of chosen) mutate(fs.readFileSync(path.join(ROOT, mutation.file), 'utf8'), mutation);
  if (check) return console.log(`${chosen.length} mutation snippets found, each once`);

  const dir = copyTree();
  const summary = [];
  try {
    const fakes = run(dir, process.execPath, [
      path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.fakes.json',
    ]);
    if (fakes.code !== 0) throw new Error(`the fakes do not build:\n${fakes.output}`);
    for (const mutation of chosen) {
      const file = path.join(dir, mutation.file);
      const original = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, mutate(original, mutation));
      try {
        const build = run(dir, 'npm', ['run', 'build', '--silent']);
        // A mutation that does not compile tests nothing: reported as broken (the run fails), never as caught.
        if (build.code !== 0) {
          summary.push({
            name: mutation.name,
            caught: [],
            broken: build.output
              .split('\n')
              .filter((line) => line.includes('error'))
              .join('; '),
          });
          console.log(`\n${mutation.name}: DOES NOT BUILD: ${summary[summary.length - 1].broken}`);
          continue;
        }
        const resultsFile = path.join(dir, '.mutation-results.json');
        fs.rmSync(resultsFile, { force: true });
        run(dir, process.execPath, [
          path.join(dir, 'node_modules', 'jest', 'bin', 'jest.js'),
          '--json',
          `--outputFile=${resultsFile}`,
          '--runInBand',
          ...mutation.tests,
        ]);
        const caught = failedTests(resultsFile);
        summary.push({ name: mutation.name, caught });
        console.log(
          `\n${mutation.name}: caught by ${caught.length} test(s)${caught.length < LEAST_CATCHING_TESTS ? '  <-- FEWER THAN TWO' : ''}`,
        );
        for (const test of caught) console.log(`  ${test}`);
      } finally {
        fs.writeFileSync(file, original);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  console.log('\nsummary:');
  for (const { name, caught, broken } of summary)
    console.log(`  ${broken ? 'BROKEN' : String(caught.length).padStart(6)}  ${name}`);
  const weak = summary.filter(({ caught }) => caught.length < LEAST_CATCHING_TESTS);
  if (weak.length > 0) {
    console.log(
      `\n${weak.length} mutation(s) caught by fewer than ${LEAST_CATCHING_TESTS} tests: ${weak.map(({ name }) => name).join('; ')}`,
    );
    process.exitCode = 1;
  } else {
    console.log(`\nevery mutation caught by at least ${LEAST_CATCHING_TESTS} tests`);
  }
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
