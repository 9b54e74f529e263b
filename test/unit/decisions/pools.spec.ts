/**
 * A provider with several replicas (`endpoints = [...]`): three fake Laya servers on loopback behind one
 * in-process gateway. The balancer spreads load, a failing replica is routed around and cools on its own, and
 * health, capabilities and the attempts name the replicas.
 */
import type { TestingModule } from '@nestjs/testing';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { CooldownService } from '../../../src/decisions/pools/cooldown.service';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import type { DecisionRequest } from '../../../src/decisions/questions/decision.types';
import { EndpointLoad } from '../../../src/decisions/pools/endpoint-load.service';
import { endpointKey } from '../../../src/decisions/pools/cooldown.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { LayaFake } from '../../fakes/laya.fake';
import { SYSTEMONE_ROUTE } from '../../fakes/systemone-answer';
import { eventually } from '../../helpers/eventually';
import { gatewayApp } from '../../helpers/gateway-app';

const QUESTION: DecisionRequest = {
  questions: { q: { type: 'choice', instructions: 'Rerun or block?', criteria: { rerun: null, block: null } } },
};

let replicas: LayaFake[] = [];
let urls: string[] = [];
const apps: TestingModule[] = [];

beforeEach(async () => {
  replicas = [new LayaFake(), new LayaFake(), new LayaFake()];
  urls = [];
  for (const replica of replicas) urls.push((await replica.start()).origin);
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await Promise.all(replicas.map((replica) => replica.stop()));
});

async function pooled(
  gatewayKeys = '',
  endpoints = urls.map((url) => JSON.stringify(url)).join(', '),
): Promise<TestingModule> {
  const app = await gatewayApp({
    toml: `[gateway]\nprovider = "laya"\n${gatewayKeys}\n[providers.laya]\nendpoints = [${endpoints}]\n`,
  });
  apps.push(app);
  expect(app.get(ConfigStatus).errors()).toEqual([]);
  return app;
}

const decisionsTo = (replica: LayaFake) => replica.requestsTo(SYSTEMONE_ROUTE).length;

/** Runs `total` decisions with `concurrency` of them in flight at every moment. */
async function decideMany(decisions: DecisionService, total: number, concurrency: number): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      const outcome = await decisions.decide(QUESTION);
      expect(outcome.answers.q).toMatchObject({ status: 'ok' });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

describe('a pool of three replicas', () => {
  it('spreads 3,000 decisions at 32 in flight within 15% of even (least requests in flight)', async () => {
    // A little engine time, so requests overlap on each replica and in-flight counts differ between them.
    for (const replica of replicas) replica.latencyMs = () => 2;
    const decisions = (await pooled()).get(DecisionService);
    await decideMany(decisions, 3_000, 32);
    const counts = replicas.map(decisionsTo);
    process.stderr.write(`3,000 decisions at 32 in flight over three replicas: ${counts.join(', ')}\n`);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3_000);
    for (const count of counts) {
      expect(count).toBeGreaterThanOrEqual(850);
      expect(count).toBeLessThanOrEqual(1_150);
    }
  });

  const TOO_MANY_OPTIONS = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`option ${i}`, null]));
  it.each<[string, Partial<DecisionRequest>, string]>([
    [
      'more options than Laya takes',
      { questions: { q: { type: 'choice', instructions: 'Which?', criteria: TOO_MANY_OPTIONS } } },
      'limit_exceeded',
    ],
    [
      'an image, which Laya does not take',
      { ...QUESTION, images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }] },
      'unsupported',
    ],
  ])('asks no other replica for a request refused before sending (%s), and cools none', async (_, request, code) => {
    const app = await pooled();
    const { answers, attempts } = await app.get(DecisionService).decide({ ...QUESTION, ...request });
    expect(answers.q).toMatchObject({ status: 'error', error: { code } });
    expect(attempts).toHaveLength(1);
    expect(replicas.map(decisionsTo)).toEqual([0, 0, 0]);
    const resolved = app.get(DecisionService).resolvePool({ provider: 'laya' });
    const members = 'pool' in resolved ? resolved.pool : [];
    expect(members).toHaveLength(3);
    const keys = members.map((member) => endpointKey({ provider: 'laya' }, member));
    expect(keys.map((key) => app.get(CooldownService).peekMs(key))).toEqual([0, 0, 0]);
  });

  it('gives a replica of weight 2 about twice the share of one of weight 1', async () => {
    for (const replica of replicas) replica.latencyMs = () => 2;
    const endpoints = `{ url = "${urls[0]}", weight = 2 }, "${urls[1]}", "${urls[2]}"`;
    const decisions = (await pooled('', endpoints)).get(DecisionService);
    await decideMany(decisions, 1_200, 32);
    const [heavy, ...light] = replicas.map(decisionsTo);
    for (const count of light) expect(heavy / count).toBeGreaterThan(1.5);
  });

  it('routes around a replica that starts failing, cools it alone, and takes it back after a successful trial', async () => {
    const app = await pooled();
    const decisions = app.get(DecisionService);
    const cooldown = app.get(CooldownService);
    let now = 1_000_000;
    jest.spyOn(cooldown as unknown as { now(): number }, 'now').mockImplementation(() => now);
    const [a, b, c] = replicas;
    await decideMany(decisions, 30, 1); // every replica answered: each has a latency on record

    b.fault = 'status-500';
    b.requests.length = 0;
    // Sixty at once: the failing replica, quick to fail, has the fewest in flight and is picked at once.
    const failing = await Promise.all(Array.from({ length: 60 }, () => decisions.decide(QUESTION)));
    for (const outcome of failing) {
      // No decision is lost to the failing replica: the next replica of the pool answers it.
      expect(outcome.answers.q).toMatchObject({ status: 'ok' });
      expect(outcome.attempts.at(-1)).toMatchObject({
        outcome: 'answered',
        endpoint: expect.not.stringMatching(urls[1]),
      });
    }
    // Three failures in a row cool it (calls already in flight to it may fail too, and extend the window).
    const failures = decisionsTo(b);
    expect(failures).toBeGreaterThanOrEqual(3);
    expect(cooldown.state(`laya@${urls[1]}`).state).toBe('cooling');
    // Skipped while it cools: no more requests to it.
    await decideMany(decisions, 60, 8);
    expect(decisionsTo(b)).toBe(failures);
    expect(cooldown.state(`laya@${urls[0]}`).state).toBe('ok');
    const health = await app.get(HealthService).health();
    expect(health.status).toBe('ok');
    expect(health.providers[0].endpoints!.map((endpoint) => [endpoint.url, endpoint.state])).toEqual([
      [urls[0], 'ok'],
      [urls[1], 'cooling'],
      [urls[2], 'ok'],
    ]);
    const chain = app.get(CapabilitiesService).capabilities().provider_chain;
    expect(chain).toEqual([
      {
        name: 'laya',
        role: 'primary',
        endpoints: urls.map((url, i) => ({ url, weight: 1, state: i === 1 ? 'cooling' : 'ok', in_flight: 0 })),
      },
    ]);

    // It comes back; once its window is over one decision tries it, and its answer ends the cooldown.
    b.fault = 'none';
    now += cooldown.windowMs(cooldown.state(`laya@${urls[1]}`).level);
    const before = [a, b, c].map(decisionsTo);
    await decideMany(decisions, 30, 1);
    expect(cooldown.state(`laya@${urls[1]}`).state).toBe('ok');
    expect(decisionsTo(b) - before[1]).toBeGreaterThan(0);
    await decideMany(decisions, 300, 8);
    expect(Math.min(...replicas.map(decisionsTo).map((count, i) => count - before[i]))).toBeGreaterThan(50);
  });

  it('fails over to the next provider only once every replica has failed, and names each replica tried', async () => {
    for (const replica of replicas) replica.fault = 'status-503';
    const app = await gatewayApp({
      toml: `[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoints = [${urls.map((url) => JSON.stringify(url)).join(', ')}]\n`,
    });
    apps.push(app);
    const reply = await app.get(DecideService).decide({ question: 'Rerun or block?', options: ['rerun', 'block'] });
    expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
    expect(reply.attempts.map((attempt) => [attempt.provider, attempt.outcome, attempt.endpoint])).toEqual([
      ['laya', 'error', expect.any(String)],
      ['laya', 'error', expect.any(String)],
      ['laya', 'error', expect.any(String)],
      ['mock', 'ok', undefined],
    ]);
    expect(new Set(reply.attempts.slice(0, 3).map((attempt) => attempt.endpoint))).toEqual(new Set(urls));
  });

  it('skips the provider as cooling only when every replica is cooling', async () => {
    for (const replica of replicas) replica.fault = 'status-500';
    const decisions = (await pooled()).get(DecisionService);
    // Each decision tries all three; three decisions cool all three.
    for (let i = 0; i < 3; i++) expect((await decisions.decide(QUESTION)).attempts).toHaveLength(3);
    const skipped = await decisions.decide(QUESTION);
    expect(skipped.attempts).toEqual([
      { provider: 'laya', outcome: 'skipped', error: expect.objectContaining({ code: 'cooling_down' }), latencyMs: 0 },
    ]);
  });

  it('counts requests in flight per replica while they run, and spreads them over the replicas', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    for (const replica of replicas) replica.gate = gate;
    const app = await pooled();
    const load = app.get(EndpointLoad);
    const running = Promise.all(Array.from({ length: 6 }, () => app.get(DecisionService).decide(QUESTION)));
    const inFlight = () => load.all().map((stats) => stats.inFlight);
    await eventually(() => replicas.every((replica) => decisionsTo(replica) === 2), 'every replica holds two requests');
    expect(inFlight()).toEqual([2, 2, 2]);
    release();
    await running;
    expect(inFlight()).toEqual([0, 0, 0]);
  });
});

describe('the endpoints key', () => {
  const errorsOf = async (table: string, env: Record<string, string> = {}) => {
    const app = await gatewayApp({ toml: `[gateway]\nprovider = "laya"\n[providers.laya]\n${table}\n`, env });
    apps.push(app);
    return app
      .get(ConfigStatus)
      .errors()
      .map((error) => [error.key, error.message.replace(/^.*?: (providers|SYSTEM1)/, '$1')]);
  };

  it('names the bad entry of the list', async () => {
    expect(await errorsOf('endpoints = ["http://127.0.0.1:1", "http://10.0.0.7:8765"]')).toEqual([
      ['providers.laya.endpoints[1]', expect.stringContaining('not this machine')],
    ]);
    expect(await errorsOf('endpoints = []')).toEqual([
      ['providers.laya.endpoints', expect.stringContaining('non-empty list')],
    ]);
    expect(await errorsOf('endpoints = [{ url = "http://127.0.0.1:1", weight = 0 }]')).toEqual([
      ['providers.laya.endpoints', expect.stringContaining('[0].weight must be')],
    ]);
    expect(await errorsOf('endpoints = [{ url = "http://127.0.0.1:1", port = 2 }]')).toEqual([
      ['providers.laya.endpoints', expect.stringContaining('"port"')],
    ]);
    expect(await errorsOf('endpoints = ["http://127.0.0.1:1", "http://127.0.0.1:1/"]')).toEqual([
      ['providers.laya.endpoints', expect.stringContaining('twice')],
    ]);
  });

  it('refuses endpoint beside endpoints, and a provider without an endpoint setting', async () => {
    expect(await errorsOf('endpoint = "http://127.0.0.1:1"\nendpoints = ["http://127.0.0.1:2"]')).toEqual([
      ['providers.laya.endpoints', expect.stringContaining('beside endpoint')],
    ]);
    const app = await gatewayApp({
      toml: '[gateway]\nprovider = "mock"\n[providers.mock]\nendpoints = ["http://127.0.0.1:2"]\n',
    });
    apps.push(app);
    expect(
      app
        .get(ConfigStatus)
        .errors()
        .map((error) => error.key),
    ).toEqual(['providers.mock.endpoints']);
  });

  it('reads SYSTEM1_<NAME>_ENDPOINTS as a comma-separated list, over the file', async () => {
    const app = await gatewayApp({
      toml: '[gateway]\nprovider = "laya"\n[providers.laya]\nendpoints = ["http://127.0.0.1:1"]\n',
      env: { SYSTEM1_LAYA_ENDPOINTS: `${urls[0]}, ${urls[1]}` },
    });
    apps.push(app);
    expect(app.get(ConfigStatus).errors()).toEqual([]);
    const outcome = await app.get(DecisionService).decide(QUESTION);
    expect(outcome.answers.q).toMatchObject({ status: 'ok' });
    expect(urls.slice(0, 2)).toContain(outcome.attempts[0].endpoint);
  });
});
