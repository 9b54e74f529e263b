import { Injectable } from '@nestjs/common';
import { ConfigError } from '../../config/config-error';
import type { LoadedConfig } from '../../config/config.loader';
import { ProviderRegistry } from '../registry/provider-registry.service';

/** Every config problem, from the file and the environment and from the providers' own checks. */
@Injectable()
export class ConfigStatus {
  constructor(
    readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
  ) {}

  errors(): ConfigError[] {
    return [...this.config.errors, ...this.registry.configErrors()];
  }
}
