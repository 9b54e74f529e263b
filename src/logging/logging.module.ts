import { Inject, Module, OnModuleInit } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { gatewayLogger } from './gateway.logger';

/** Applies `log_level` and `log_file` to the process logger as soon as the config is read. */
@Module({})
export class LoggingModule implements OnModuleInit {
  constructor(@Inject(system1Config.KEY) private readonly config: LoadedConfig) {}

  onModuleInit(): void {
    gatewayLogger.configure(this.config.gateway.log_level, this.config.gateway.log_file);
  }
}
