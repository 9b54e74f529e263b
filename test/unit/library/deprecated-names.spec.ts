/**
 * The names of 0.1 that the vocabulary step renamed still work for one release, as the library's users wrote
 * them: a choice-only engine class extending `ChoiceEngine`, marked `@System1Engine()`, found by the registry.
 */
import { Injectable, Module } from '@nestjs/common';
import { ChoiceEngine, ChoiceProvider, System1Engine, System1ProviderDefinition } from '../../../src';
import type { ProviderDefinition } from '../../../src';
import { gatewayApp } from '../../helpers/gateway-app';
import { DecideService } from '../../../src/mcp/decide/decide.service';

class FirstOption extends ChoiceEngine {
  readonly name = 'first-option';
  protected choiceCapabilities() {
    return { batch: false, probabilities: false };
  }
  protected async pick(ask: { options: string[] }) {
    return { decision: ask.options[0], confidence: 0.8 };
  }
  async health() {
    return { ok: true, detail: 'always up' };
  }
}

@Injectable()
@System1Engine()
class FirstOptionDefinition implements ProviderDefinition {
  readonly name = 'first-option';
  readonly description = 'answers the first option';
  readonly settings = {};
  create() {
    return new FirstOption();
  }
}

@Module({ providers: [FirstOptionDefinition] })
class FirstOptionModule {}

it('keeps ChoiceEngine and System1Engine as the new names under the old ones', () => {
  expect(ChoiceEngine).toBe(ChoiceProvider);
  expect(System1Engine).toBe(System1ProviderDefinition);
});

it('finds a provider written with the old names and decides with it', async () => {
  const app = await gatewayApp({ toml: '[gateway]\nprovider = "first-option"\n', imports: [FirstOptionModule] });
  const reply = await app.get(DecideService).decide({ question: 'Which?', options: ['a', 'b'] });
  expect(reply).toMatchObject({ status: 'decided', decision: 'a', provider: 'first-option' });
  await app.close();
});
