/**
 * Every keyed engine, its fake echoing the key back in each encoding an engine would use (in its own error
 * shape, on every route): the attempt, system1_health and the log lines show the engine's words with the key
 * redacted, never the key in any form.
 */
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { AnthropicFake } from '../../fakes/anthropic.fake';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { ECHO_ENCODINGS, echoedKey, type EchoEncoding, type FakeEngine } from '../../fakes/fake-engine';
import { LayaFake } from '../../fakes/laya.fake';
import { OpenAiFake } from '../../fakes/openai.fake';
import { LlamaServerFake } from '../../fakes/systemone.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { VonFake } from '../../fakes/von.fake';
import { gatewayApp } from '../../helpers/gateway-app';
import { keyedEnginesLeftOut } from '../../helpers/keyed-engines';

/** Characters that encodings change (`/`, `+`, `=`, `~`), and no `sk-` prefix for the catch-all pattern to hide behind. */
const KEY = 'cfTOKEN/with+slash=and~more_42';
const PIECES = ['cfTOKEN', 'with+slash', 'and~more', 'slash%3Dand'];

const ENGINES: [provider: string, variable: string, make: () => FakeEngine, settings: string][] = [
  ['laya', 'SYSTEM1_LAYA_API_KEY', () => new LayaFake(), ''],
  ['von', 'SYSTEM1_VON_API_KEY', () => new VonFake(), ''],
  ['systemone', 'SYSTEM1_SYSTEMONE_API_KEY', () => new LlamaServerFake(), ''],
  ['typesafe', 'SYSTEM1_TYPESAFE_API_KEY', () => new TypeSafeFake(), ''],
  [
    'cloudflare',
    'SYSTEM1_CLOUDFLARE_API_TOKEN',
    () => new CloudflareFake({ accountId: 'acct-1' }),
    'account_id = "acct-1"',
  ],
  ['openai', 'SYSTEM1_OPENAI_API_KEY', () => new OpenAiFake(), 'model = "qwen3-4b"'],
  ['anthropic', 'ANTHROPIC_API_KEY', () => new AnthropicFake(), ''],
];

const CASES = ENGINES.flatMap(([provider, variable, make, settings]) =>
  ECHO_ENCODINGS.map((encoding): [string, EchoEncoding, string, () => FakeEngine, string] => [
    provider,
    encoding,
    variable,
    make,
    settings,
  ]),
);

describe('an engine that echoes the key in its error body', () => {
  it('covers every built-in engine that takes a key', () => {
    expect(keyedEnginesLeftOut(ENGINES.map(([provider]) => provider))).toEqual([]);
  });

  let fake: FakeEngine | undefined;
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });

  it.each(CASES)(
    '%s echoing it as %s: redacted in the attempt, health and logs',
    async (provider, encoding, variable, make, settings) => {
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
