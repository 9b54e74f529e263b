import { DynamicModule, Module } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { System1Module } from '../system1/system1.module';

/**
 * The container behind `createSystem1`: the decision core over the embedder's (or the user's) config,
 * without the MCP transport or the commands.
 */
@Module({})
export class LibraryModule {
  static with(config: LoadedConfig, env: Env): DynamicModule {
    return { module: LibraryModule, imports: [System1Module.forRoot({ config, env })] };
  }
}
