import { Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../../config/config.loader';
import { callerScope } from '../pipeline/caller-scope';
import { callerModelEntryProblems, callerModelProblem, configuredModel } from './caller-models';
import { DecisionService } from '../pipeline/decision.service';
import { ProviderRegistry } from '../registry/provider-registry.service';
import type { ModelRef } from '../questions/question.types';

/**
 * The models the MCP tools' callers may name (`system1_ask`'s `model`). Over stdio the caller is the user
 * who configured the engines: `[gateway] caller_models`, by default anything configured. serve-http's
 * callers are strangers with a token: the chain and `[http] caller_models` only (see {@link forHttpCallers}).
 */
@Injectable()
export class CallerModels {
  private allowed: readonly string[];
  private widenedBy = '[gateway] caller_models';

  constructor(
    private readonly config: LoadedConfig,
    private readonly decisions: DecisionService,
    private readonly registry: ProviderRegistry,
  ) {
    this.allowed = config.gateway.caller_models;
  }

  /** serve-http holds its callers to `[http] caller_models`; returns that list's problems (it then does not start). */
  forHttpCallers(): string[] {
    this.allowed = this.config.http.caller_models;
    this.widenedBy = '[http] caller_models';
    return callerModelEntryProblems(this.allowed, (name) => this.registry.knows(name)).map(
      (problem) => `[http] caller_models: ${problem}`,
    );
  }

  /** Why a caller may not name `ref`; undefined when it may. A named serve-http caller is held to its own list. */
  problem(ref: ModelRef): string | undefined {
    const scope = callerScope.getStore();
    const rule = {
      allowed: scope?.callerModels ?? this.allowed,
      chain: this.decisions.chainFor(undefined),
      widenedBy: scope?.widenedBy ?? this.widenedBy,
    };
    return callerModelProblem(ref, rule, (provider) => configuredModel(this.decisions, provider));
  }
}
