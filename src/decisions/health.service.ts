import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '../config/config-error';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ChainMember, ChainRole, ProviderRegistry } from './provider-registry.service';
import { CooldownService } from './cooldown.service';
import { failureKind, toDecisionError } from './decision-error';
import { ConfigStatus } from './config-status.service';
import { withDeadline } from '../common/deadline';
import { PauseState } from './pause-state.service';
import { GATEWAY_VERSION, SCHEMA_VERSIONS } from '../common/version';

export type HealthStatus = 'ok' | 'degraded' | 'down' | 'paused';

export interface ProviderProbe {
  name: string;
  role: ChainRole;
  ok: boolean;
  latency_ms: number;
  detail: string;
}

export interface HealthReport {
  status: HealthStatus;
  gateway_version: string;
  schema_version: string;
  schema_versions: typeof SCHEMA_VERSIONS;
  config_file: string | null;
  config_errors: ConfigError[];
  paused: boolean;
  providers: ProviderProbe[];
}

/** `system1_health`: probes every provider in the chain at once, each under the attempt timeout. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
    private readonly cooldown: CooldownService,
  ) {}

  async health(): Promise<HealthReport> {
    const configErrors = this.configStatus.errors();
    const probes = await Promise.all(this.registry.chain().map((member) => this.probe(member)));
    const paused = this.pause.isPaused();
    return {
      status: overallStatus(configErrors.length > 0, paused, probes),
      gateway_version: GATEWAY_VERSION,
      schema_version: SCHEMA_VERSIONS.response,
      schema_versions: SCHEMA_VERSIONS,
      config_file: this.config.configFile,
      config_errors: configErrors,
      paused,
      providers: probes,
    };
  }

  private async probe({ name, role, provider }: ChainMember): Promise<ProviderProbe> {
    if (!provider) return { name, role, ok: false, latency_ms: 0, detail: 'not configured (see config_errors)' };
    const started = performance.now();
    const timeoutMs = this.config.gateway.timeout_s * 1000;
    // Read, never claimed: a probe is not the one call that tries a cooling engine again.
    const cooling = this.cooldown.peekMs(name);
    const note = cooling > 0 ? `; cooling down: ${Math.ceil(cooling / 1000)} s left` : '';
    try {
      if (!provider.health) return { name, role, ok: true, latency_ms: 0, detail: `this engine has no health probe${note}` };
      const result = await withDeadline((signal) => provider.health!({ signal, requestId: 'health' }), timeoutMs);
      // A probe that succeeds does not end a cooldown: /health may answer while decisions hang. Only an answer does.
      return { name, role, ok: result.ok === true, latency_ms: Math.round(performance.now() - started), detail: `${String(result.detail)}${note}` };
    } catch (error) {
      const { code, message } = toDecisionError(error, timeoutMs);
      return { name, role, ok: false, latency_ms: Math.round(performance.now() - started), detail: `${failureKind(code)}: ${message}${note}` };
    }
  }
}

function overallStatus(configBroken: boolean, paused: boolean, probes: ProviderProbe[]): HealthStatus {
  if (configBroken) return 'down';
  if (paused) return 'paused';
  const [primary, ...fallbacks] = probes;
  if (primary?.ok) return 'ok';
  return fallbacks.some((probe) => probe.ok) ? 'degraded' : 'down';
}
