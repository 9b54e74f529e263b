import { Module } from '@nestjs/common';
import { FAST_DECIDER, unwiredFastDecider } from './fast-decider';
import { OpenAiRouterService } from './openai-router.service';

/** The structured-output router: `serve-openai` and the fast engine it asks. */
@Module({
  providers: [OpenAiRouterService, { provide: FAST_DECIDER, useValue: unwiredFastDecider }],
  exports: [OpenAiRouterService],
})
export class StructuredModule {}
