import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { capabilityRefusal } from '../../../src/decisions/questions/question-capabilities';
import type { Question } from '../../../src/decisions/questions/question.types';
import { CloudflareProviderDefinition } from '../../../src/providers/system-one/cloudflare.provider';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { gatewayApp } from '../../helpers/gateway-app';
import { faultGateway, OPTIONS, QUESTION } from './systemone.shared';
import { dialectSecret, selfDescribed, systemOneDialectSuite } from './systemone-dialect.suite';

/** The token the suite sets, here also written into a config file that must never repeat it. */
const SECRET = dialectSecret('cloudflare');
const ACCOUNT = '0123456789abcdef0123456789abcdef';
const ACCOUNT_SETTING = `account_id = "${ACCOUNT}"`;
const RUN_CLEF = `/client/v4/accounts/${ACCOUNT}/ai/run/@cf/cloudflare/clef`;

describe('cloudflare provider against a fake Workers AI', () => {
  const engine = systemOneDialectSuite({
    definition: CloudflareProviderDefinition,
    fake: (key) => new CloudflareFake({ apiKey: key, accountId: ACCOUNT }),
    reach: 'hosted',
    settings: ACCOUNT_SETTING,
    route: RUN_CLEF,
    wire: { model: 'clef', criteria: selfDescribed },
    decimals: 4,
    capabilities: {
      max_options: 255,
      batch: true,
      probabilities: true,
      model: 'clef',
      remote: true,
      questions: { types: ['choice', 'noul', 'score'], max_questions: 64, max_options: 255, max_levels: 10 },
    },
    defaults: { account_id: null, endpoint: 'https://api.cloudflare.com', model: 'clef' },
    statusFaults: [
      ['status-500', 'error', 'HTTP 500 from 127.0.0.1'],
      ['status-401', 'error', 'Authentication error; Cloudflare refused the API token'],
      ['status-403', 'error', 'Cloudflare refused the API token'],
      ['status-429', 'error', 'Capacity temporarily exceeded, please try again. (retry after 1 s)'],
      ['status-503', 'error', 'Service temporarily unavailable (retry after 1 s)'],
    ],
    refusedKey: 'Cloudflare refused the API token: check SYSTEM1_CLOUDFLARE_API_TOKEN',
    health: {
      detail:
        'SYSTEM1_CLOUDFLARE_API_TOKEN is set; Workers AI has no health endpoint, so the token and the account are checked on the first decision; model clef',
    },
    refusedSettings: [
      ['a missing account_id', '', 'providers.cloudflare.account_id', 'is required'],
      ['an empty account_id', 'account_id = " "', 'providers.cloudflare.account_id', 'must be a non-empty string'],
      [
        'an unknown model',
        `${ACCOUNT_SETTING}\nmodel = "clef-2"`,
        'providers.cloudflare.model',
        'must be one of "clef", "clef-flash"',
      ],
      [
        'plain http to another machine (the token would travel in clear text)',
        `${ACCOUNT_SETTING}\nendpoint = "http://api.cloudflare.com"`,
        'providers.cloudflare.endpoint',
        'must use https',
      ],
      [
        'allow_remote, which a hosted API does not take',
        `${ACCOUNT_SETTING}\nallow_remote = true`,
        'providers.cloudflare.allow_remote',
        'is not a setting of provider cloudflare',
      ],
      [
        'a token written into the file',
        `${ACCOUNT_SETTING}\napi_token = "${SECRET}"`,
        'providers.cloudflare.api_token',
        'environment variables only (SYSTEM1_CLOUDFLARE_API_TOKEN)',
      ],
      [
        'a key written into the file',
        `${ACCOUNT_SETTING}\napi_key = "${SECRET}"`,
        'providers.cloudflare.api_key',
        'environment variables only (SYSTEM1_CLOUDFLARE_API_TOKEN)',
      ],
    ],
  });
  const { start, keyEnv: KEY_ENV } = engine;

  it("unwraps Workers AI's envelope, answering from its result", async () => {
    const { gateway } = await start({ env: KEY_ENV, gateway: 'min_confidence = 0.5' });
    const reply = await gateway.decide({
      question: 'Which team should handle this?',
      options: ['billing', 'shipping', 'technical'],
      context: { ticket: 'charged twice' },
    });
    expect(engine.fake.requestsTo(RUN_CLEF)).toHaveLength(1);
    expect(reply).toMatchObject({
      status: 'decided',
      provider: 'cloudflare',
      decision: 'billing',
      confidence: 0.5,
      probabilities: { billing: 0.5, shipping: 0.3333, technical: 0.1667 },
      rationale: 'cloudflare clef: billing=0.5, shipping=0.3333, technical=0.1667',
    });
  });

  it('runs clef-flash at its own route, with "clef-flash" in the body', async () => {
    const { gateway } = await start({ env: KEY_ENV, settings: `${ACCOUNT_SETTING}\nmodel = "clef-flash"` });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(
      engine.fake.requestsTo(`/client/v4/accounts/${ACCOUNT}/ai/run/@cf/cloudflare/clef-flash`)[0].body,
    ).toMatchObject({ model: 'clef-flash' });
    expect(reply).toMatchObject({ status: 'decided', rationale: expect.stringMatching(/^cloudflare clef-flash: /) });
  });

  it('URL-encodes the account id into the path', async () => {
    await engine.fake.stop();
    engine.fake = new CloudflareFake({ apiKey: SECRET, accountId: 'team/a b?' });
    await engine.fake.start();
    const { gateway } = await start({ env: KEY_ENV, settings: 'account_id = "team/a b?"' });
    expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({ status: 'decided' });
    expect(engine.fake.requests.map((request) => request.path)).toEqual([
      '/client/v4/accounts/team%2Fa%20b%3F/ai/run/@cf/cloudflare/clef',
    ]);
  });

  it('reads a body without "success" as an unwrapped System One reply', async () => {
    engine.fake.replyStyle = 'unwrapped';
    const { gateway } = await start({ env: KEY_ENV });
    expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({
      status: 'decided',
      provider: 'cloudflare',
      decision: OPTIONS[0],
    });
  });

  describe('success: false', () => {
    it("is a failure even on HTTP 200, named by the envelope's first error, and the fallback answers", async () => {
      engine.fake.replyStyle = 'success-false';
      const { gateway } = await start({ env: KEY_ENV, gateway: faultGateway('error') });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.attempts[0]).toMatchObject({
        provider: 'cloudflare',
        outcome: 'error',
        detail: "Cloudflare's reply says success: false: error 5006: Bad input",
      });
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
    });

    it('never shows the token, even when the error message echoes it', async () => {
      engine.fake.reshape = () => ({
        success: false,
        errors: [{ code: 10000, message: `token ${SECRET} is not allowed here` }],
        messages: [],
        result: null,
      });
      const { gateway, logs } = await start({ env: KEY_ENV, gateway: faultGateway('error') });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.attempts[0].detail).toBe(
        "Cloudflare's reply says success: false: error 10000: token [redacted] is not allowed here",
      );
      expect(JSON.stringify(reply) + logs.join('\n')).not.toContain(SECRET);
    });

    it('says so when the envelope lists no error', async () => {
      engine.fake.reshape = () => ({ success: false, errors: [], messages: [] });
      const { gateway } = await start({ env: KEY_ENV, gateway: faultGateway('error') });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply.attempts[0]).toMatchObject({
        outcome: 'error',
        detail: "Cloudflare's reply says success: false with no error listed",
      });
    });
  });

  describe('a batch, asked of the provider directly', () => {
    const question = (id: string): [string, Question] => [
      id,
      { type: 'choice', instructions: `question ${id}`, criteria: { a: null, b: null } },
    ];
    const provider = () =>
      new CloudflareProviderDefinition(new EngineHttpClient()).create(
        { account_id: ACCOUNT, endpoint: engine.fake.url.origin, model: 'clef' },
        { env: KEY_ENV },
      );
    const context = () => ({ signal: AbortSignal.timeout(5000), requestId: 'test' });

    it('answers several questions in one request', async () => {
      const reply = await provider().evaluate(
        { state: { diff: '+1 -1' }, questions: Object.fromEntries([question('q1'), question('q2')]) },
        context(),
      );
      expect(engine.fake.requests).toHaveLength(1);
      expect(Object.keys(reply.answers)).toEqual(['q1', 'q2']);
    });

    it('declares 64 questions per request, so the pipeline refuses 65 without calling Workers AI', async () => {
      const questions = Object.fromEntries(Array.from({ length: 65 }, (_, i) => question(`q${i}`)));
      expect(capabilityRefusal('cloudflare', { questions }, provider().capabilities().questions!)).toEqual({
        code: 'limit_exceeded',
        message: 'cloudflare takes at most 64 questions per request, not 65',
      });
      expect(engine.fake.requests).toHaveLength(0);
    });
  });

  describe('the token', () => {
    it.each([
      [
        'a wrong token (401)',
        'status-401',
        /^HTTP 401 from 127\.0\.0\.1:\d+: Authentication error; Cloudflare refused the API token: check SYSTEM1_CLOUDFLARE_API_TOKEN/,
      ],
      [
        'a token without the permission (403)',
        'status-403',
        /^HTTP 403 from 127\.0\.0\.1:\d+: Authentication error: this token may not run Workers AI on this account; Cloudflare refused the API token: check SYSTEM1_CLOUDFLARE_API_TOKEN/,
      ],
    ] as const)('reports %s as refused, naming the variable and never the token', async (_name, fault, words) => {
      engine.fake.fault = fault;
      const { gateway, logs } = await start({ env: KEY_ENV });
      const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
      expect(reply).toMatchObject({ status: 'error', error: { code: 'provider_error' } });
      expect(reply.attempts[0].detail).toMatch(words);
      expect(JSON.stringify(reply) + logs.join('\n')).not.toContain(SECRET);
    });
  });

  describe('settings', () => {
    it('takes the account from SYSTEM1_CLOUDFLARE_ACCOUNT_ID', async () => {
      const { gateway } = await start({ env: { ...KEY_ENV, SYSTEM1_CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, settings: '' });
      expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({
        status: 'decided',
        provider: 'cloudflare',
      });
      expect(engine.fake.requestsTo(RUN_CLEF)).toHaveLength(1);
    });

    it('takes the remote https endpoint by default, with no allow_remote', async () => {
      const app = await gatewayApp({
        toml: `[gateway]\nprovider = "cloudflare"\n[providers.cloudflare]\n${ACCOUNT_SETTING}`,
        env: KEY_ENV,
      });
      try {
        expect(app.get(CapabilitiesService).capabilities().config_errors).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
});
