/**
 * Issue 42 as a team runs it: three `system1 serve-http` replicas behind the real haproxy, sharing a real
 * redis-server (started here on a free loopback port, its own folder). A caller's rate is exact across the
 * replicas, a reply cached by one answers on another, `toggle off` from a machine with another install dir
 * pauses all three, and Redis killed (SIGKILL) during 2,000 decisions loses none of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  findExecutable,
  freePort,
  haproxyConfig,
  startHaproxy,
  waitForStates,
  writeConfig,
} from '../../bench/load-balancer';
import { eventually, eventuallyRead } from '../helpers/eventually';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { NO_REDIS, type RunningRedis, startRedis } from '../helpers/redis-store';
import { send } from '../helpers/router-harness';
import { describeUnless } from '../helpers/skip-unless';
import { requireBuild, runCli, Sandbox } from './helpers/gateway';
import { HttpServerProcess } from './helpers/http-server-process';
import { LayaFake } from '../fakes/laya.fake';

const TOKEN = 'e2e-shared-default-7c1d';
const ALICE = 'e2e-shared-alice-93fa2b';
const BOB = 'e2e-shared-bob-51d0e8';
const CAROL = 'e2e-shared-carol-0a7e44';
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
// alice and bob are held to 60 a minute, burst 10; the default caller (the load runs) is not limited.
const CONFIG = `
[gateway]
provider = "mock"
cache_ttl_s = 60
[http.callers.alice]
rate_per_minute = 60
burst = 10
[http.callers.bob]
rate_per_minute = 60
burst = 10
[http.callers.carol]
rate_per_minute = 60
burst = 10
`;

const haproxy = findExecutable('haproxy');
const missing = NO_REDIS ?? (haproxy ? undefined : 'haproxy is not installed (apt-get install haproxy)');

const callBody = (tool: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });

/** The tool's structured result from a plain POST's answer (JSON, or one SSE event). */
function resultOf(text: string): Record<string, unknown> {
  const json = text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data:'))!
        .slice(5);
  return (JSON.parse(json) as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent;
}

beforeAll(() => requireBuild());

/** system1_health as one replica answers it over /mcp. */
const healthOf = async (replica: HttpServerProcess) =>
  resultOf(
    (
      await send(replica.port, {
        path: '/mcp',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` },
        body: callBody('system1_health', {}),
      })
    ).text,
  );

describeUnless(missing)('serve-http: three replicas behind haproxy sharing a redis-server', () => {
  let redis: RunningRedis;
  let dir: string;
  let sandbox: Sandbox;
  let replicas: HttpServerProcess[] = [];
  let balancer: ReturnType<typeof startHaproxy>;
  let frontendPort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'system1-shared-'));
    sandbox = new Sandbox();
    frontendPort = await freePort();
    env = {
      SYSTEM1_CONFIG: sandbox.writeConfig(CONFIG),
      SYSTEM1_STATE_URL: redis.url,
      // These counts are the store's: on a busy machine a call may pass the default 50 ms, and a replica then
      // takes from its own bucket (the store-down path, whose own checks are below), which would blur them.
      SYSTEM1_STATE_DEADLINE_MS: '1000',
      SYSTEM1_HTTP_TOKEN: TOKEN,
      SYSTEM1_HTTP_TOKEN_ALICE: ALICE,
      SYSTEM1_HTTP_TOKEN_BOB: BOB,
      SYSTEM1_HTTP_TOKEN_CAROL: CAROL,
      SYSTEM1_HTTP_ALLOWED_HOSTS: `127.0.0.1:${frontendPort}`,
    };
    replicas = await Promise.all([0, 1, 2].map(() => HttpServerProcess.start(sandbox, env)));
    const statsSocket = path.join(dir, 'haproxy.sock');
    const config = writeConfig(
      path.join(dir, 'haproxy.cfg'),
      haproxyConfig({ frontendPort, replicaPorts: replicas.map((replica) => replica.port), statsSocket }),
    );
    balancer = startHaproxy(haproxy!, config);
    await waitForStates(statsSocket, (states) => Object.values(states).filter((state) => state === 'UP').length === 3);
    for (const replica of replicas) await eventually(() => /state store .* up/.test(replica.stderr()), 'shared');
  }, 60_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const replica of replicas) replica.kill();
    await Promise.all(replicas.map((replica) => replica.exited));
    sandbox?.dispose();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const decide = (port: number, token: string, question: string) =>
    send(port, {
      path: '/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: callBody('system1_decide', { question, options: ['rerun', 'block'] }),
    });

  const storeUp = async (replica: HttpServerProcess) => {
    const answer = await send(replica.port, {
      method: 'GET',
      path: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return sampleValue(parsePrometheusText(answer.text), 'system1_state_store_up');
  };

  it('holds a caller of rate 60, burst 10 to 10 of 40 decisions at once across the replicas; another caller is not affected', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => decide(frontendPort, ALICE, `Burst question ${i}?`)),
    );
    const decided = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(decided).toHaveLength(10);
    expect(refused).toHaveLength(30);
    for (const answer of refused) expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(0);
    expect((await decide(frontendPort, BOB, 'Bob asks?')).status).toBe(200);
  });

  it('gives a caller sending at full speed for 20 s its burst and 60 a minute, within 10%, across the replicas', async () => {
    const SECONDS = 20;
    const until = Date.now() + SECONDS * 1000;
    let decided = 0;
    let n = 0;
    const worker = async () => {
      while (Date.now() < until) {
        const answer = await decide(frontendPort, CAROL, `Full speed ${n++}?`);
        if (answer.status === 200) decided++;
        else expect(answer.status).toBe(429);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    // Each replica on its own would give three times this.
    const expected = 10 + SECONDS;
    expect(decided).toBeGreaterThanOrEqual(Math.floor(expected * 0.9));
    expect(decided).toBeLessThanOrEqual(Math.ceil(expected * 1.1));
  }, 60_000);

  it('answers on one replica a request cached through another, without an engine call', async () => {
    const first = resultOf((await decide(replicas[0].port, TOKEN, 'Cache this one?')).text);
    expect(first.status).toBe('decided');
    const again = await eventuallyRead(
      async () => resultOf((await decide(replicas[2].port, TOKEN, 'Cache this one?')).text),
      (result) => JSON.stringify(result.attempts).includes('"cached"'),
      'the second replica answers from the shared cache',
    );
    expect(again.attempts).toEqual([expect.objectContaining({ outcome: 'cached' })]);
  });

  it('toggle off from another install dir pauses all three, and on resumes them', async () => {
    const elsewhere = new Sandbox();
    try {
      const cli = { SYSTEM1_STATE_URL: redis.url, SYSTEM1_CONFIG: elsewhere.writeConfig('') };
      expect((await runCli(['toggle', 'off'], elsewhere.env(cli))).code).toBe(0);
      for (const replica of replicas)
        await eventuallyRead(
          () => healthOf(replica),
          (h) => h.paused === true,
          'paused',
        );
      expect((await runCli(['toggle', 'on'], elsewhere.env(cli))).code).toBe(0);
      for (const replica of replicas)
        await eventuallyRead(
          () => healthOf(replica),
          (h) => h.paused === false,
          'on',
        );
    } finally {
      elsewhere.dispose();
    }
  });

  it('loses no decision when Redis is killed during 2,000 at 16 in flight, and shares again once it is back', async () => {
    const TOTAL = 2000;
    const statuses: string[] = [];
    let next = 0;
    let killed: Promise<void> | undefined;
    let restarted: Promise<void> | undefined;
    const seenDown: number[] = [];
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        if (i === 300) killed = redis.kill();
        if (i === 900 && killed)
          restarted = killed.then(async () => {
            for (const replica of replicas) seenDown.push((await storeUp(replica)) ?? -1);
            await redis.restart();
          });
        const answer = await decide(frontendPort, TOKEN, `Load question ${i}?`);
        statuses.push(answer.status === 200 ? String(resultOf(answer.text).status) : `HTTP ${answer.status}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await restarted;
    expect(statuses).toHaveLength(TOTAL);
    expect(statuses.filter((status) => status !== 'decided')).toEqual([]);
    expect(seenDown).toEqual([0, 0, 0]);
    for (const replica of replicas)
      await eventuallyRead(
        () => storeUp(replica),
        (up) => up === 1,
        'the replica shares state again',
      );
  }, 120_000);
});

describeUnless(NO_REDIS)('serve-http: three replicas sharing cooldowns through a redis-server', () => {
  let redis: RunningRedis;
  let sandbox: Sandbox;
  let engine: LayaFake;
  let replicas: HttpServerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    sandbox = new Sandbox();
    engine = new LayaFake();
    const endpoint = (await engine.start()).toString().replace(/\/$/, '');
    // A 1 s attempt timeout and cooldown_s = 8: the first window is 1 s.
    const config = '[gateway]\nprovider = "laya"\nfallback = []\ntimeout_s = 1\ncooldown_s = 8\n';
    const env = {
      SYSTEM1_CONFIG: sandbox.writeConfig(config),
      SYSTEM1_LAYA_ENDPOINT: endpoint,
      SYSTEM1_STATE_URL: redis.url,
      SYSTEM1_HTTP_TOKEN: TOKEN,
    };
    replicas = await Promise.all([0, 1, 2].map(() => HttpServerProcess.start(sandbox, env)));
    for (const replica of replicas) await eventually(() => /state store .* up/.test(replica.stderr()), 'shared');
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) replica.kill();
    await Promise.all(replicas.map((replica) => replica.exited));
    await engine?.stop();
    sandbox?.dispose();
    await redis?.stop();
  });

  const decideOn = async (replica: HttpServerProcess, question: string) =>
    resultOf(
      (
        await send(replica.port, {
          path: '/mcp',
          headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` },
          body: callBody('system1_decide', { question, options: ['rerun', 'block'] }),
        })
      ).text,
    );
  const asked = () => engine.requestsTo('/v1/systemone').length;

  it('an engine that hangs on one replica is skipped by the other two; one trial across the team brings it back', async () => {
    expect((await decideOn(replicas[0], 'Healthy?')).status).toBe('decided');
    engine.fault = 'hang';
    const before = asked();
    expect((await decideOn(replicas[0], 'Hanging?')).status).not.toBe('decided');
    expect(asked()).toBe(before + 1);
    // The other two never wait for it: they skip it, no request of theirs reaches the engine.
    // The other two hear of it (within moments: the failure is published) and never wait for it: they skip it,
    // no request of theirs reaches the engine.
    for (const replica of replicas.slice(1)) {
      await eventuallyRead(
        () => healthOf(replica),
        (health) => JSON.stringify(health).includes('cooling down'),
        'cooling',
      );
      expect((await decideOn(replica, 'Skipped?')).status).not.toBe('decided');
    }
    expect(asked()).toBe(before + 1);

    // The fault clears; the trial's answer takes a moment, so the others are asked while it runs.
    engine.fault = 'slow';
    engine.slowMs = 400;
    let added = 0;
    for (let round = 0; round < 100 && added === 0; round++) {
      const start = asked();
      await Promise.all(replicas.map((replica, i) => decideOn(replica, `After the window ${round}-${i}?`)));
      added = asked() - start;
      if (added === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(added).toBe(1);
    engine.fault = 'none';
    for (const replica of replicas)
      await eventuallyRead(
        () => decideOn(replica, 'Back?'),
        (result) => result.status === 'decided',
        'back for all',
      );
  }, 60_000);
});
