import { Module } from '@nestjs/common';
import { QuestionChainModule } from '../system1/question-chain.module';
import { QuestionChainService } from '../decisions/decision.service';
import { FAST_DECIDER, type FastDecider } from './fast-decider';
import { OpenAiRouterService } from './openai-router.service';

/**
 * The structured-output router: `serve-openai` and the fast engine it asks, which is the library API's
 * question chain over this container's providers, reading the engine, fallbacks, timeout and calibration
 * from the user's config like the rest of the gateway.
 */
@Module({
  imports: [QuestionChainModule.with()],
  providers: [
    OpenAiRouterService,
    { provide: FAST_DECIDER, inject: [QuestionChainService], useFactory: (chain: QuestionChainService): FastDecider => (request) => chain.decide(request) },
  ],
  exports: [OpenAiRouterService],
})
export class StructuredModule {}
