import { Module } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { FAST_DECIDER, type FastDecider, pipelineDecider } from './fast-decider';
import { OpenAiRouterService } from './openai-router.service';

/**
 * The OpenAI-compatible router (`serve-openai`) and the fast engine it asks: the one pipeline, reading the
 * engine, fallbacks, timeout and calibration from the user's config.
 */
@Module({
  providers: [
    OpenAiRouterService,
    {
      provide: FAST_DECIDER,
      inject: [DecisionService, system1Config.KEY],
      // The router's engine budget is the gateway's timeout_s, as for the other tools, not the library's default.
      useFactory: (decisions: DecisionService, config: LoadedConfig): FastDecider =>
        pipelineDecider(decisions, config.gateway.timeout_s * 1000),
    },
  ],
  exports: [OpenAiRouterService],
})
export class OpenAiRouterModule {}
