import type { DecisionModelSettings } from '../config/config-keys';
import type { CallerModels } from '../decisions/callers/caller-models.service';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { ModelRef } from '../decisions/questions/question.types';

/** The model name of the operator's chain (`[gateway] provider` then `fallback`). */
export const CHAIN_MODEL = 'system1';

/** What a request's `model` names: the engines that answer it, and the threshold that comes with it. */
export interface ModelChoice {
  /** The name as asked, for messages. */
  name: string;
  /** The engines, in order: the chain's, an alias's, or the one engine named. */
  engines: ModelRef[];
  /** An alias's own chain (the pipeline's policy chain); absent for `system1` and for one engine. */
  chain?: ModelRef[];
  /** One engine named (`laya`, `laya/typed-decisions`): it runs alone, as `system1_ask`'s `model` does. */
  model?: ModelRef;
  /** An alias's `min_confidence`. */
  minConfidence?: number;
}

export type ModelLookup = { choice: ModelChoice } | { notFound: string };

/** `provider` or `provider/model`, split at the first slash (model ids may hold more: `org/model`). */
export function parseModelName(name: string): ModelRef {
  const slash = name.indexOf('/');
  return slash < 0 ? { provider: name } : { provider: name.slice(0, slash), model: name.slice(slash + 1) };
}

/** `provider/model`, or the provider alone when it names no model: how headers and answers name an engine. */
export function modelName(ref: ModelRef): string {
  return ref.model === undefined ? ref.provider : `${ref.provider}/${ref.model}`;
}

/**
 * The model names the served Decisions API answers to: `system1` (the chain), an operator's alias
 * (`[decisions.models.<alias>]`, offered to every caller as the chain is), or one engine, `provider` or
 * `provider/model`, which a caller may name only as its policy allows (`caller_models`, as for `system1_ask`).
 * An alias wins over a provider of the same name.
 */
export class ModelCatalog {
  constructor(
    private readonly aliases: Readonly<Record<string, DecisionModelSettings>>,
    private readonly decisions: Pick<DecisionService, 'chainFor' | 'resolvePool'>,
    private readonly callerModels: Pick<CallerModels, 'problem'>,
  ) {}

  /** The problems of the aliases' chains, each naming its key (for the server's start). */
  problems(known: (provider: string) => boolean): string[] {
    return Object.entries(this.aliases).flatMap(([alias, { chain }]) =>
      chain
        .filter((entry) => entry.startsWith('/') || entry.endsWith('/') || !known(parseModelName(entry).provider))
        .map(
          (entry) =>
            `[decisions.models.${alias}] chain: ${JSON.stringify(entry)} is not a configured or built-in ` +
            'provider ("provider" or "provider/model")',
        ),
    );
  }

  /** What `name` answers with, or why nothing does (unknown, or not this caller's to choose: both a 404). */
  lookup(name: string): ModelLookup {
    if (name === CHAIN_MODEL) return { choice: { name, engines: this.decisions.chainFor(undefined) } };
    const alias = Object.hasOwn(this.aliases, name) ? this.aliases[name] : undefined;
    if (alias) {
      const chain = alias.chain.map(parseModelName);
      return {
        choice: {
          name,
          engines: chain,
          chain,
          ...(alias.min_confidence !== undefined && { minConfidence: alias.min_confidence }),
        },
      };
    }
    const ref = parseModelName(name);
    if (ref.provider === '' || ref.model === '') return { notFound: this.unknown(name) };
    // The caller's policy first: a name it may not choose never reaches the registry.
    if (this.callerModels.problem(ref) !== undefined) return { notFound: this.unknown(name) };
    if ('problem' in this.decisions.resolvePool(ref)) return { notFound: this.unknown(name) };
    return { choice: { name, engines: [ref], model: ref } };
  }

  /** The same words for a model that does not exist and one the caller may not use: neither is its to learn. */
  private unknown(name: string): string {
    const offered = [CHAIN_MODEL, ...Object.keys(this.aliases)].join(', ');
    return (
      `the model ${JSON.stringify(name.slice(0, 200))} does not exist or you do not have access to it ` +
      `(this server offers ${offered}, and the engines your caller policy allows as "provider" or "provider/model")`
    );
  }
}
