import { Module } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionService } from '../decisions/decision.service';
import { libraryDecide } from '../library/library-decide';
import { FAST_DECIDER, type FastDecider } from './fast-decider';
import { OpenAiRouterService } from './openai-router.service';

/**
 * The structured-output router: `serve-openai` and the fast engine it asks, which is the library's `decide`
 * over the one pipeline, reading the engine, fallbacks, timeout and calibration from the user's config.
 */
@Module({
  providers: [
    OpenAiRouterService,
    {
      provide: FAST_DECIDER,
      inject: [DecisionService, system1Config.KEY],
      // The router's engine budget is the gateway's timeout_s, as for the other tools, not the library's default.
      useFactory: (decisions: DecisionService, config: LoadedConfig): FastDecider => (request) => libraryDecide(decisions, request, { timeoutMs: config.gateway.timeout_s * 1000 }, 'openai_router'),
    },
  ],
  exports: [OpenAiRouterService],
})
export class StructuredModule {}
