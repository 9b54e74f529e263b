import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { CallerModels } from '../decisions/callers/caller-models.service';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { DecisionsApi } from '../decisions-api/decisions-api';

/**
 * The served Decisions API (`/v1/decisions`, `/v1/systemone`) over this application's pipeline: the one
 * builder for serve-http and serve-openai. Whose models a caller may name is `CallerModels`' (serve-http
 * narrows it to `[http] caller_models`; serve-openai keeps `[gateway] caller_models`).
 */
@Injectable()
export class DecisionsApiParts {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly decisions: DecisionService,
    private readonly registry: ProviderRegistry,
    private readonly callerModels: CallerModels,
  ) {}

  /** The API, its log lines going to `log`. */
  api(log: (line: string) => void): DecisionsApi {
    return new DecisionsApi({
      decisions: this.decisions,
      callerModels: this.callerModels,
      aliases: this.config.decisionModels,
      engineUrls: (provider) => this.registry.endpointsOf(provider),
      placeholders: (providers) => this.registry.placeholders(providers),
      log,
    });
  }

  /** What is wrong with the operator's model aliases (the server does not start with any). */
  problems(): string[] {
    return this.api(() => undefined).models.problems((name) => this.registry.knows(name));
  }
}
