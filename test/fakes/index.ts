import { AnthropicFake } from './anthropic.fake';
import { CloudflareFake } from './cloudflare.fake';
import { DecisionsEngineFake } from './decisions-engine';
import type { FakeEngine } from './fake-engine';
import { LayaFake } from './laya.fake';
import { OllamaFake } from './ollama.fake';
import { OpenAiFake } from './openai.fake';
import { LlamaServerFake } from './systemone.fake';
import { TypeSafeFake } from './typesafe.fake';
import { VonFake } from './von.fake';

/**
 * Every fake engine by the name `npm run fake-engine -- <name>` takes. One line per engine. A fake started
 * this way checks the same key the real engine would, from the same variable, when it is set.
 */
export const FAKE_ENGINES: Record<string, () => FakeEngine> = {
  anthropic: () => new AnthropicFake(process.env.ANTHROPIC_API_KEY),
  ollama: () => new OllamaFake(),
  openai: () => new OpenAiFake(process.env.SYSTEM1_OPENAI_API_KEY),
  'openai-decisions': () => new DecisionsEngineFake({ apiKey: process.env.SYSTEM1_OPENAI_DECISIONS_API_KEY }),
  'openai-decisions-fireworks': () =>
    new DecisionsEngineFake({ apiKey: process.env.SYSTEM1_OPENAI_DECISIONS_API_KEY, host: 'fireworks' }),
  laya: () => new LayaFake({ apiKey: process.env.LAYA_API_KEY }),
  von: () => new VonFake({ apiKey: process.env.VON_API_KEY }),
  systemone: () => new LlamaServerFake({ apiKey: process.env.SYSTEM1_SYSTEMONE_API_KEY }),
  typesafe: () => new TypeSafeFake(),
  cloudflare: () =>
    new CloudflareFake({
      apiKey: process.env.SYSTEM1_CLOUDFLARE_API_TOKEN,
      accountId: process.env.SYSTEM1_CLOUDFLARE_ACCOUNT_ID || undefined,
    }),
};
