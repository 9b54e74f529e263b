/**
 * A team's own engine named by the config (`[engines] modules`) reaches the hooks as it reaches `system1 mcp`:
 * the route hook, which builds its services without Nest, asks it, and so does the MCP server.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';

const resources = Resources.perTest();
beforeAll(() => requireBuild());

const DESIGN = 'Design the architecture for the new billing service and decide between a queue and cron jobs';

/**
 * A definition class as a team writes one, in plain CommonJS with nothing of the gateway required: a
 * `calls_file` setting from `[providers.teamengine]`, and an engine that records each call's question ids.
 */
const TEAM_ENGINE = `
const { appendFileSync } = require('node:fs');
const path = { expects: 'a file path', fromFile: (value) => String(value), fromEnv: (text) => text };
class TeamEngineDefinition {
  constructor(http) {
    this.name = 'teamengine';
    this.description = "the team's engine";
    this.settings = { calls_file: { type: path, describe: 'where each call is recorded' } };
    this.http = http;
  }
  create(settings) {
    return {
      capabilities: () => ({ batch: true, probabilities: true, model: 'team-1' }),
      async evaluate(request) {
        appendFileSync(settings.calls_file, JSON.stringify(Object.keys(request.questions)) + '\\n');
        const answers = {};
        for (const [id, question] of Object.entries(request.questions)) {
          const options = Object.keys(question.criteria);
          const pick = id === 'design' ? 'yes' : options.includes('no') ? 'no' : options[0];
          const rest = options.filter((option) => option !== pick);
          const probabilities = Object.fromEntries(options.map((option) => [option, option === pick ? 0.97 : 0.03 / rest.length]));
          answers[id] = { type: 'choice', choice: pick, probabilities };
        }
        return { answers };
      },
    };
  }
}
exports.engines = [TeamEngineDefinition];
`;

/** The module beside the config, named relative to it, and the team's engine as the only one. */
function setUp(sandbox: Sandbox) {
  const repo = path.join(sandbox.dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(sandbox.dir, 'team-engine.js'), TEAM_ENGINE);
  const calls = path.join(sandbox.dir, 'calls.jsonl');
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "teamengine"\n[engines]\nmodules = ["team-engine.js"]\n` +
      `[providers.teamengine]\ncalls_file = ${JSON.stringify(calls)}\n` +
      `[routing]\nenabled = true\nlog_dirs = [${JSON.stringify(repo)}]\nbudget_ms = 10000\n`,
  );
  const recorded = () =>
    existsSync(calls)
      ? readFileSync(calls, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return { repo, config, recorded, env: sandbox.env({ SYSTEM1_CONFIG: config }) };
}

it('the route hook asks the engine the config names, in one pass for the four features', async () => {
  const sandbox = resources.sandbox();
  const { repo, env, recorded } = setUp(sandbox);
  const input = { session_id: 's-1', hook_event_name: 'UserPromptSubmit', prompt_id: 'p-1', cwd: repo, prompt: DESIGN };
  const result = await runCli(['route-hook'], env, 20_000, input);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({
    hookSpecificOutput: {
      hookEventName: 'UserPromptSubmit',
      additionalContext: expect.stringContaining('pass model: "opus"'),
    },
  });
  expect(recorded()).toEqual([['read_only', 'design', 'review', 'specified']]);
});

it('system1 mcp answers from the same engine, configured the same way', async () => {
  const sandbox = resources.sandbox();
  const { config, recorded } = setUp(sandbox);
  const session = await resources.server({ sandbox, env: { SYSTEM1_CONFIG: config } });
  const { body } = await session.decide({ question: 'Rerun or block?', options: ['rerun', 'block'] });
  expect(body).toMatchObject({ status: 'decided', decision: 'rerun', provider: 'teamengine' });
  expect(recorded()).toHaveLength(1);
});
