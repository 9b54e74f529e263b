import { Module } from '@nestjs/common';
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
    { provide: FAST_DECIDER, inject: [DecisionService], useFactory: (decisions: DecisionService): FastDecider => (request) => libraryDecide(decisions, request) },
  ],
  exports: [OpenAiRouterService],
})
export class StructuredModule {}
