/**
 * Every keyed engine, its fake echoing the key back in each encoding an engine would use (in its own error
 * shape, on every route): the attempt, system1_health and the log lines show the engine's words with the key
 * redacted, never the key in any form.
 */
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { AnthropicFake } from '../../fakes/anthropic.fake';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { DecisionsEngineFake } from '../../fakes/decisions-engine';
import { ECHO_ENCODINGS, echoedKey, type EchoEncoding, type FakeEngine } from '../../fakes/fake-engine';
import { LayaFake } from '../../fakes/laya.fake';
import { OpenAiFake } from '../../fakes/openai.fake';
import { LlamaServerFake } from '../../fakes/systemone.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { VonFake } from '../../fakes/von.fake';
import { gatewayApp } from '../../helpers/gateway-app';
import { keyedBuiltInEngines } from '../../helpers/keyed-engines';

/** Characters that encodings change (`/`, `+`, `=`, `~`), and no `sk-` prefix for the catch-all pattern to hide behind. */
const KEY = 'cfTOKEN/with+slash=and~more_42';
const PIECES = ['cfTOKEN', 'with+slash', 'and~more', 'slash%3Dand'];

/**
 * How each keyed engine is faked, by provider: its fake and any settings it needs besides the endpoint. The
 * engines and their key variables come from the built-in definitions (keyed-engines.ts); one without an
 * entry here fails below.
 */
const FAKES: Record<string, { make: () => FakeEngine; settings?: string }> = {
  laya: { make: () => new LayaFake() },
  von: { make: () => new VonFake() },
  systemone: { make: () => new LlamaServerFake() },
  typesafe: { make: () => new TypeSafeFake() },
  cloudflare: { make: () => new CloudflareFake({ accountId: 'acct-1' }), settings: 'account_id = "acct-1"' },
  openai: { make: () => new OpenAiFake(), settings: 'model = "qwen3-4b"' },
  'openai-decisions': { make: () => new DecisionsEngineFake() },
  anthropic: { make: () => new AnthropicFake() },
};

const CASES = keyedBuiltInEngines().flatMap(({ provider, variable }) =>
  ECHO_ENCODINGS.map((encoding): [string, EchoEncoding, string] => [provider, encoding, variable]),
);

describe('an engine that echoes the key in its error body', () => {
  it('has a fake for every built-in engine that takes a key', () => {
    const keyed = keyedBuiltInEngines().map(({ provider }) => provider);
    expect(keyed).toEqual(expect.arrayContaining(['laya', 'cloudflare', 'anthropic']));
    expect(keyed.filter((provider) => !Object.hasOwn(FAKES, provider))).toEqual([]);
  });

  let fake: FakeEngine | undefined;
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });

  it.each(CASES)(
    '%s echoing it as %s: redacted in the attempt, health and logs',
    async (provider, encoding, variable) => {
      if (!Object.hasOwn(FAKES, provider)) throw new Error(`no fake for ${provider}: add one to FAKES`);
      const { make, settings = '' } = FAKES[provider];
      fake = make();
      await fake.start();
      fake.fault = `echo-key-${encoding}`;
      fake.faultEverywhere = true;
      const logs: string[] = [];
      const toml = `[gateway]\nprovider = "${provider}"\nfallback = ["mock"]\n[providers.${provider}]\nendpoint = "${fake.url.origin}"\n${settings}`;
      const app = await gatewayApp({ toml, env: { [variable]: KEY }, logs });
      try {
        const reply = await app
          .get(DecideService)
          .decide({ question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] });
        const report = await app.get(HealthService).health();
        expect(fake.requests.length).toBeGreaterThan(0);
        // The engine's words came through, with the key cut out of them.
        expect(reply.attempts[0]).toMatchObject({
          provider,
          outcome: 'error',
          detail: expect.stringMatching(/invalid credentials: .*\[redacted\]/),
        });
        const everything = [JSON.stringify(reply), JSON.stringify(report), ...logs].join('\n');
        for (const form of ECHO_ENCODINGS)
          expect(everything).not.toContain(echoedKey(KEY, form).replace(/^Basic /, ''));
        for (const piece of PIECES) expect(everything).not.toContain(piece);
      } finally {
        await app.close();
      }
    },
  );
});
