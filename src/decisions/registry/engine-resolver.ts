import type { ModelRef } from '../questions/question.types';
import { type Pool, singleEngine } from './engine-pool';
import type { ProviderRegistry } from './provider-registry.service';
import type { System1Provider } from './provider.interface';
import type { RuntimeProviders } from './runtime-providers';

/**
 * The engines behind a model reference: one the application registered at run time first, else the configured
 * provider's pool (with the model asked, when the reference names one), or why there is none.
 */
export class EngineResolver {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly runtime: RuntimeProviders,
  ) {}

  /** A provider by name: one the application registered, else one from the config (with the model asked). */
  resolve(ref: ModelRef): { provider: System1Provider } | { problem: string } {
    const resolved = this.resolvePool(ref);
    return 'pool' in resolved ? { provider: resolved.pool[0].provider } : resolved;
  }

  /** The engines behind `ref`: a pool of replicas, or the one engine (a registered one, or one configured). */
  resolvePool(ref: ModelRef): { pool: Pool } | { problem: string } {
    const custom = this.runtime.get(ref.provider);
    if (custom) return { pool: singleEngine(custom) };
    if (!this.registry.knows(ref.provider)) {
      const names = this.registry
        .available()
        .map((definition) => definition.name)
        .join(', ');
      return {
        problem:
          `no provider is named ${JSON.stringify(ref.provider)}: register it with registerProvider, ` +
          `or configure one (built in: ${names})`,
      };
    }
    const pool = ref.model
      ? this.registry.instanceWithModel(ref.provider, ref.model)
      : this.registry.instance(ref.provider).pool;
    if (pool) return { pool };
    return {
      problem:
        `provider ${JSON.stringify(ref.provider)} is not usable: ` +
        `${this.registry.unusable(ref.provider, ref.model)}`,
    };
  }
}
