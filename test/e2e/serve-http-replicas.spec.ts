/**
 * What two `serve-http` replicas share and what each keeps to itself (docs/team-deployment.md, "State across
 * replicas"): pointed at the same config file and install dir, they apply the same fits and obey one pause
 * switch, while a provider's cooldown stays with the replica that saw it fail.
 */
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Json, requireBuild, Resources, runCli } from './helpers/gateway';
import { HttpServerProcess, stopAll, structured } from './helpers/http-server-process';

const resources = Resources.perTest();
const QUESTION = 'Rerun the flaky pipeline or block the merge?';
let servers: HttpServerProcess[] = [];
let clients: Client[] = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  await stopAll(servers, clients);
  servers = [];
  clients = [];
});

it('share the config, the fits and the pause switch through shared paths, and keep cooldowns to themselves', async () => {
  const sandbox = resources.sandbox();
  // The team's fit, in the shared install dir: it rescales the mock's 0.9 on this question (T = 2).
  const fit = {
    provider: 'mock',
    model: null,
    question: QUESTION,
    temperature: 2,
    n: 100,
    at_bound: false,
    trusted: true,
    source: 'team fit',
    fitted_at: '2026-12-01',
  };
  writeFileSync(path.join(sandbox.install, 'calibration.json'), JSON.stringify({ version: 1, fits: [fit] }));
  // The shared config: a primary that never answers in time, the mock behind it, a cooldown longer than the test.
  const config = sandbox.writeConfig(
    '[gateway]\nprovider = "slow"\nfallback = ["mock"]\ntimeout_s = 0.3\ncooldown_s = 600\n[providers.slow]\ntype = "mock"\ndelay_s = 30\n',
  );
  const env = { SYSTEM1_CONFIG: config, SYSTEM1_PROVIDER: 'slow' };
  servers = await Promise.all([HttpServerProcess.start(sandbox, env), HttpServerProcess.start(sandbox, env)]);
  clients = await Promise.all(servers.map((server) => server.client()));
  const [a, b] = clients;
  const decide = async (client: Client) =>
    structured(
      await client.callTool({ name: 'system1_decide', arguments: { question: QUESTION, options: ['rerun', 'block'] } }),
    ) as Json;
  const route = (body: Json) => body.attempts.map((attempt: Json) => `${attempt.provider} ${attempt.outcome}`);

  // Replica A sees the primary time out and cools it down: its next decision skips it (recorded, not asked).
  expect(route(await decide(a))).toEqual(['slow timeout', 'mock ok']);
  const cooled = await decide(a);
  expect(route(cooled)).toEqual(['slow error', 'mock ok']);
  expect(cooled.attempts[0]).toMatchObject({ latency_ms: 0, detail: expect.stringMatching(/^cooling down/) });
  // Replica B has not seen it fail: it still asks the primary first. Cooldowns are per replica.
  const fresh = await decide(b);
  expect(route(fresh)).toEqual(['slow timeout', 'mock ok']);

  // Both applied the team's fit from the shared install dir.
  for (const body of [cooled, fresh])
    expect(body).toMatchObject({ status: 'decided', decision: 'rerun', provider: 'mock', calibrated: true });
  expect(cooled.confidence).toBeCloseTo(fresh.confidence, 10);
  expect(cooled.confidence).toBeLessThan(0.9);

  // One toggle pauses every replica that shares the install dir, from its next call, with no restart.
  expect((await runCli(['toggle', 'off'], sandbox.env(env))).code).toBe(0);
  for (const client of [a, b])
    expect(await decide(client)).toMatchObject({ status: 'abstained', rationale: expect.stringMatching(/paused/i) });
  expect((await runCli(['toggle', 'on'], sandbox.env(env))).code).toBe(0);
  for (const client of [a, b]) expect(await decide(client)).toMatchObject({ status: 'decided', provider: 'mock' });
});
