import { text } from '../../config/setting-types';
import { type HttpEngineSettings, httpEngineSettings } from '../http/http-settings';
import {
  type ProviderCapabilities,
  ProviderSettingError,
  type ProviderSettingSpecs,
} from '../../decisions/registry/provider.interface';
import { MAX_LETTER_OPTIONS } from './letter-choice';

/** The settings of a chat-model adapter: where the server listens, and which model to ask (no default). */
export type LetterChatSettings = HttpEngineSettings & { model?: string };

export function letterChatSettings(
  defaultEndpoint: string,
  modelHint: string,
): ProviderSettingSpecs<LetterChatSettings> {
  return {
    ...httpEngineSettings(defaultEndpoint),
    model: { type: text(), describe: `the chat model to ask (required; ${modelHint})` },
  };
}

/**
 * The configured model. A chat server hosts many models and none is a sensible default, so an empty or
 * missing `model` is a config error rather than a guess.
 */
export function requiredModel(settings: LetterChatSettings, modelHint: string): string {
  const model = settings.model?.trim() ?? '';
  if (!model) throw new ProviderSettingError('model', `is required: name the chat model to ask (${modelHint})`);
  return model;
}

/** What every letter adapter can do: one question per call, up to 26 lettered options, with probabilities. */
export function letterCapabilities(model: string, facts: Record<string, unknown> = {}): ProviderCapabilities {
  return { max_options: MAX_LETTER_OPTIONS, batch: false, probabilities: true, model, technique: 'letters', ...facts };
}
