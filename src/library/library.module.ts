import { DynamicModule, Global, Module } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import type { System1Options } from '../decisions/decision-options';
import { QuestionChainModule } from '../system1/question-chain.module';

/** The config an embedding application gives (or the user's), in place of the CLI's process-wide one. */
@Global()
@Module({})
class LibraryConfigModule {
  static with(config: LoadedConfig, env: Env): DynamicModule {
    return {
      module: LibraryConfigModule,
      providers: [
        { provide: system1Config.KEY, useValue: config },
        { provide: PROCESS_ENV, useValue: env },
      ],
      exports: [system1Config.KEY, PROCESS_ENV],
    };
  }
}

/**
 * The container behind `createSystem1`: the same providers, registry and calibration as the MCP server,
 * and the question chain, without the MCP transport or the commands.
 */
@Module({})
export class LibraryModule {
  static with(config: LoadedConfig, env: Env, options: System1Options): DynamicModule {
    return {
      module: LibraryModule,
      imports: [LibraryConfigModule.with(config, env), QuestionChainModule.with(options)],
    };
  }
}
