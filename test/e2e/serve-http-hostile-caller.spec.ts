/**
 * One shared replica, one hostile caller with a valid token, one well-behaved client beside it: whatever the
 * hostile caller sends (models that cool the primary down, model names that fill a cache, engines outside the
 * chain), the other client's decisions are all made by the chain's primary, the heap stays bounded, and the
 * engine outside the chain never hears from the replica.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AnthropicFake } from '../fakes/anthropic.fake';
import { TypeSafeFake } from '../fakes/typesafe.fake';
import { requireBuild, Resources } from './helpers/gateway';
import { COLLECTABLE_ENV, HttpServerProcess, stopAll, structured } from './helpers/http-server-process';
import { send } from '../helpers/router-harness';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

const TOKEN = 'e2e-hostile-caller-token-41d9';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const OPERATOR_KEY = 'sk-ant-operator-key-never-sent';
const ENGINE_KEY = 'engine-key-3f8a';
const ATTACK_MS = 20_000;
const IN_FLIGHT = 8;
// Retained, after a full collection: about 2.5 MB here. Keeping each 900 KB name the attack sends would pass
// this within 36 rounds, and the attack plays hundreds.
const HEAP_GROWTH_LIMIT = 32 * 1024 * 1024;

const resources = Resources.perTest();
let servers: HttpServerProcess[] = [];
let clients: Client[] = [];
const offChain = new AnthropicFake(OPERATOR_KEY);
// The chain's primary: a System One engine that, like TypeSafe's API, answers 400 to a model it does not know.
const primary = new TypeSafeFake({ apiKey: ENGINE_KEY });

beforeAll(async () => {
  requireBuild();
  await Promise.all([offChain.start(), primary.start()]);
  primary.record = false;
});
afterAll(() => Promise.all([offChain.stop(), primary.stop()]));
afterEach(async () => {
  await stopAll(servers, clients);
  servers = [];
  clients = [];
});

const QUESTION = { id: 'q', type: 'choice', instructions: 'Rerun or block?', criteria: { rerun: null, block: null } };

/** What the hostile caller sends, round after round: each a request no caller may use to harm another. */
const attacks = (round: number) => [
  // A model the primary's engine does not know (it answers 400): a request-side problem, never an engine failure.
  { state: 's', questions: [QUESTION], model: { provider: 'systemone', model: `no-such-checkpoint-${round % 3}` } },
  // Distinct model names, each one more key for any cache keyed by the caller's input.
  { state: 's', questions: [QUESTION], model: { provider: 'systemone', model: `m${round}-${'x'.repeat(200)}` } },
  // A name far over any sane length.
  { state: 's', questions: [QUESTION], model: { provider: 'systemone', model: `${round}${'y'.repeat(900 * 1024)}` } },
  // An engine outside the chain, whose key the replica's environment happens to hold.
  { state: 's', questions: [QUESTION], model: { provider: 'anthropic', model: 'claude-opus-4' } },
];

/** What the server's heap retains: read after a full collection, so garbage not yet reached is not counted. */
async function heapRetained(server: HttpServerProcess): Promise<number> {
  await server.collectGarbage();
  const metrics = parsePrometheusText(
    (await send(server.port, { method: 'GET', path: '/metrics', headers: AUTH })).text,
  );
  return sampleValue(metrics, 'nodejs_heap_size_used_bytes') ?? NaN;
}

it(
  'a hostile caller cannot cool the primary down, fill the heap, or reach an engine outside the chain',
  async () => {
    const server = await HttpServerProcess.start(resources.sandbox(), {
      SYSTEM1_PROVIDER: 'systemone',
      SYSTEM1_SYSTEMONE_ENDPOINT: primary.url.origin,
      SYSTEM1_SYSTEMONE_MODEL: 'jev-1.14.0',
      SYSTEM1_SYSTEMONE_API_KEY: ENGINE_KEY,
      SYSTEM1_HTTP_TOKEN: TOKEN,
      // The operator lets callers choose any model of the primary's engine: so a model it does not know reaches it.
      SYSTEM1_HTTP_CALLER_MODELS: 'systemone:*',
      ANTHROPIC_API_KEY: OPERATOR_KEY,
      SYSTEM1_ANTHROPIC_ENDPOINT: offChain.url.origin,
      ...COLLECTABLE_ENV,
    });
    servers.push(server);
    const [polite, hostile] = await Promise.all([server.client(AUTH), server.client(AUTH)]);
    clients.push(polite, hostile);

    const decide = async (id: number) =>
      structured(
        await polite.callTool({
          name: 'system1_decide',
          arguments: {
            question: 'Rerun the flaky pipeline or block the merge?',
            options: ['rerun', 'block'],
            request_id: `polite-${id}`,
          },
        }),
      );
    // Warm up before the heap's baseline is read: the first decisions load and compile what every later one uses.
    for (let i = 0; i < 50; i++) await decide(-i);
    const heapBefore = await heapRetained(server);

    // What each kind of attack got back: the request's error code, or its question's.
    const replies = attacks(0).map(() => new Set<string>());
    const attack = async (round: number) => {
      for (const [kind, args] of attacks(round).entries()) {
        const reply = structured(await hostile.callTool({ name: 'system1_ask', arguments: args }));
        replies[kind].add(String(reply.error?.code ?? reply.answers?.q?.error?.code ?? reply.answers?.q?.status));
      }
    };
    // Three in a row with nobody else calling: the most a failure count could see.
    for (let round = 0; round < 3; round++) await attack(round);
    expect(await decide(0)).toMatchObject({ status: 'decided', provider: 'systemone' });

    const ends = Date.now() + ATTACK_MS;
    const hostileLoop = async () => {
      for (let round = 3; Date.now() < ends; round++) await attack(round);
    };
    const outcomes: { status: string; provider: string }[] = [];
    let next = 1;
    const politeLoop = async () => {
      while (Date.now() < ends) {
        const reply = await decide(next++);
        outcomes.push({ status: reply.status, provider: reply.provider });
      }
    };
    await Promise.all([hostileLoop(), ...Array.from({ length: IN_FLIGHT }, politeLoop)]);
    const heapAfter = await heapRetained(server);

    expect(outcomes.length).toBeGreaterThan(IN_FLIGHT);
    const notByPrimary = outcomes.filter((outcome) => outcome.status !== 'decided' || outcome.provider !== 'systemone');
    expect(notByPrimary).toEqual([]);
    expect(offChain.requests).toEqual([]);
    expect(heapAfter - heapBefore).toBeLessThan(HEAP_GROWTH_LIMIT);
    // An unknown model is the engine's to refuse, on that question, and the three the caller repeats cool down
    // (that model only: 'unavailable' to this caller); a name over the cap and an engine outside the chain are
    // refused whole before anything is sent.
    const [unknownModel, ...others] = replies.map((codes) => [...codes].sort());
    expect(unknownModel).toEqual(['provider_error', 'unavailable']);
    expect(others).toEqual([['provider_error'], ['invalid_request'], ['invalid_request']]);
  },
  ATTACK_MS + 60_000,
);
