import type { DecisionService } from '../pipeline/decision.service';
import type { ModelRef } from '../questions/question.types';

/** In a list of caller models: every provider the config or the application offers, with any model. */
export const ANY_MODEL = '*';

/**
 * What the callers of one surface may name in a call's `model`: the engines of its chain (with the models
 * they run), and the entries of `allowed`, each `provider` (its configured model), `provider:model` or
 * `provider:*` (any model), or `*` (anything configured). `widenedBy` names where an operator adds more.
 */
export interface CallerModelRule {
  allowed: readonly string[];
  chain: readonly ModelRef[];
  widenedBy: string;
}

/** The model a provider runs when a call names none (undefined for one that has no model setting). */
export type ConfiguredModel = (provider: string) => string | undefined;

/**
 * Why a caller may not choose `ref` as the `model` field (undefined when it may): the allowed set, but
 * not the caller's own text. Only providers named by the rule are looked up, so a caller's invented
 * names never reach the registry.
 */
export function callerModelProblem(
  ref: ModelRef,
  rule: CallerModelRule,
  configuredModel: ConfiguredModel,
): string | undefined {
  if (rule.allowed.includes(ANY_MODEL)) return undefined;
  const asked = (provider: string, model: string | undefined) =>
    ref.provider === provider && (ref.model ?? configuredModel(provider)) === model;
  const offered =
    rule.chain.some((member) => asked(member.provider, member.model ?? configuredModel(member.provider))) ||
    rule.allowed.some((entry) => {
      const { provider, model } = parseEntry(entry);
      if (model === ANY_MODEL) return ref.provider === provider;
      return asked(provider, model ?? configuredModel(provider));
    });
  if (offered) return undefined;
  const choices = [...new Set([...rule.chain.map(describe), ...rule.allowed])].join(', ');
  return `is not one that callers may choose here (allowed: ${choices}; the operator adds more with ${rule.widenedBy})`;
}

/** The model `provider` runs when a call names none, as its capabilities say. */
export function configuredModel(
  decisions: Pick<DecisionService, 'resolveCapabilities'>,
  provider: string,
): string | undefined {
  const model = decisions.resolveCapabilities({ provider })?.model;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/** The problems of a list of caller models, each naming the entry (for the server's start). */
export function callerModelEntryProblems(allowed: readonly string[], known: (provider: string) => boolean): string[] {
  return allowed
    .filter((entry) => entry !== ANY_MODEL)
    .flatMap((entry) => {
      const { provider, model } = parseEntry(entry);
      if (provider === '' || model === '')
        return [`${JSON.stringify(entry)} must be provider, provider:model, provider:* or *`];
      return known(provider) ? [] : [`${JSON.stringify(entry)} names no configured or built-in provider`];
    });
}

/** `provider:model`, split at the first colon (a model may hold more: `ollama:qwen2.5:7b`). */
function parseEntry(entry: string): { provider: string; model?: string } {
  const colon = entry.indexOf(':');
  return colon < 0 ? { provider: entry } : { provider: entry.slice(0, colon), model: entry.slice(colon + 1) };
}

function describe(ref: ModelRef): string {
  return ref.model === undefined ? ref.provider : `${ref.provider}:${ref.model}`;
}
