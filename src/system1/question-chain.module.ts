import { DynamicModule, Module } from '@nestjs/common';
import { CalibrationModule } from '../calibration/calibration.module';
import { ConfigStatus } from '../decisions/config-status.service';
import { ProvidersModule } from '../providers/providers.module';
import { LIBRARY_OPTIONS, System1Options } from '../decisions/decision-options';
import { QuestionChainService } from '../decisions/decision.service';
import { RuntimeProviders } from '../decisions/runtime-providers';

/**
 * The question chain over the container's providers and calibration: behind `createSystem1` (with the
 * embedder's options) and behind `serve-openai`'s fast engine (with the user's config alone).
 */
@Module({})
export class QuestionChainModule {
  static with(options: System1Options = {}): DynamicModule {
    return {
      module: QuestionChainModule,
      imports: [ProvidersModule, CalibrationModule],
      providers: [{ provide: LIBRARY_OPTIONS, useValue: options }, ConfigStatus, RuntimeProviders, QuestionChainService],
      exports: [QuestionChainService, RuntimeProviders, ConfigStatus],
    };
  }
}
