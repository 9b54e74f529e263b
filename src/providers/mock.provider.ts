import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { anyValue, decimal, flag, integer, text } from '../config/setting-types';
import { ProviderError } from '../decisions/errors/decision-error';
import type {
  AttemptContext,
  HealthProbeResult,
  ProviderDefinition,
  ProviderSettingSpecs,
  System1Provider,
} from '../decisions/registry/provider.interface';
import { System1ProviderDefinition } from '../decisions/registry/providers.token';
import { ChoiceAsk, ChoiceCapabilities, ChoiceProvider } from './choice/choice-provider';

type MockSettings = {
  confidence: number;
  delay_s: number;
  fail?: string;
  response?: unknown;
  max_options?: number;
  placeholder: boolean;
};

/**
 * A deterministic stand-in engine for trying the gateway and for tests.
 * How it maps decisions onto the engine: docs/engines.md#mock.
 */
@Injectable()
@System1ProviderDefinition()
export class MockProviderDefinition implements ProviderDefinition<MockSettings> {
  readonly name = 'mock';
  readonly description = 'deterministic stand-in: always picks the first option';
  /** The stand-in asks no engine, so it takes no key. */
  readonly keyVariable = undefined;
  readonly settings: ProviderSettingSpecs<MockSettings> = {
    confidence: { type: decimal({ min: 0, max: 1 }), default: 0.9, describe: 'probability given to the first option' },
    delay_s: { type: decimal({ min: 0, max: 300 }), default: 0, describe: 'seconds to wait before answering' },
    fail: { type: text(), describe: 'when set, every decision fails with this text' },
    response: { type: anyValue(), describe: 'when set, returned verbatim as the answer' },
    max_options: { type: integer({ min: 2 }), describe: 'most options accepted per question' },
    placeholder: {
      type: flag(),
      default: false,
      describe: 'written by the installer when it found no engine: no surface answers for a real model with it',
    },
  };

  create(settings: MockSettings): System1Provider {
    return new MockProvider(settings);
  }
}

class MockProvider extends ChoiceProvider {
  readonly name = 'mock';
  readonly placeholder: boolean;

  constructor(private readonly settings: MockSettings) {
    super();
    this.placeholder = settings.placeholder;
  }

  protected choiceCapabilities(): ChoiceCapabilities {
    return {
      ...(this.settings.max_options !== undefined && { max_options: this.settings.max_options }),
      batch: false,
      probabilities: true,
      model: null,
    };
  }

  protected async pick(ask: ChoiceAsk, _state: unknown, { signal }: AttemptContext): Promise<unknown> {
    if (this.settings.delay_s > 0) await sleep(this.settings.delay_s * 1000, undefined, { signal });
    if (this.settings.fail !== undefined) throw new ProviderError(this.settings.fail);
    return this.settings.response !== undefined ? this.settings.response : this.firstOption(ask.options);
  }

  async health(): Promise<HealthProbeResult> {
    if (this.settings.fail !== undefined) return { ok: false, detail: `mock set to fail: ${this.settings.fail}` };
    return { ok: true, detail: 'mock provider: deterministic stand-in, no engine behind it' };
  }

  private firstOption(options: string[]) {
    const { confidence } = this.settings;
    const share = (1 - confidence) / (options.length - 1);
    const probabilities = Object.fromEntries(options.map((option, i) => [option, i === 0 ? confidence : share]));
    return {
      decision: options[0],
      confidence,
      probabilities,
      rationale: 'mock provider: always picks the first option',
    };
  }
}
