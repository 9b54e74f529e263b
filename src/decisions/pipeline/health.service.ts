import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '../../config/config-error';
import type { LoadedConfig } from '../../config/config.loader';
import { ChainMember, ChainRole, ProviderRegistry } from '../registry/provider-registry.service';
import { IN_PROCESS, type SharedState } from '../../state/shared-state';
import { type CooldownState, CooldownService } from '../pools/cooldown.service';
import { ReplicaStates } from '../pools/replica-states';
import { isPool, type PoolMember } from '../registry/engine-pool';
import { ONLY_THE_MOCK } from '../registry/placeholder';
import type { System1Provider } from '../registry/provider.interface';
import { toDecisionError } from '../errors/decision-error';
import { ERROR_MEANINGS } from '../errors/error-meanings';
import { ConfigStatus } from './config-status.service';
import { withDeadline } from '../../common/deadline';
import { PauseState } from './pause-state.service';
import { GATEWAY_VERSION, SCHEMA_VERSIONS } from '../../common/version';

export type HealthStatus = 'ok' | 'degraded' | 'down' | 'paused';

export interface ProviderProbe {
  name: string;
  role: ChainRole;
  ok: boolean;
  latency_ms: number;
  detail: string;
  /** A pool's replicas, each probed, with its cooldown and load (absent for a provider with one endpoint). */
  endpoints?: EndpointProbe[];
}

/** One replica of a pool in `system1_health`. */
export interface EndpointProbe {
  url: string;
  weight: number;
  ok: boolean;
  latency_ms: number;
  detail: string;
  /** `cooling`: skipped for `cooling_s_left` more; `trial`: its window is over, one decision tries it again. */
  state: CooldownState['state'];
  cooling_s_left: number;
  in_flight: number;
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
  /** What works but needs the operator's eye (the chain's only engine is the mock); absent when nothing does. */
  warnings?: string[];
  /** The store `[state] url` names (absent without one): where it is and whether it answers now. */
  state_store?: { address: string; up: boolean };
}

/** `system1_health`: probes every provider in the chain at once, each under the attempt timeout. */
@Injectable()
export class HealthService {
  constructor(
    private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
    private readonly cooldown: CooldownService,
    private readonly replicas: ReplicaStates,
  ) {}

  async health(): Promise<HealthReport> {
    const configErrors = this.configStatus.errors();
    const chain = this.registry.chain();
    const probes = await Promise.all(chain.map((member) => this.probe(member)));
    const paused = this.pause.isPaused();
    const warnings = chain.every((member) => member.provider?.name === 'mock') ? [ONLY_THE_MOCK] : [];
    return {
      status: overallStatus(configErrors.length > 0, paused, probes),
      gateway_version: GATEWAY_VERSION,
      schema_version: SCHEMA_VERSIONS.response,
      schema_versions: SCHEMA_VERSIONS,
      config_file: this.config.configFile,
      config_errors: configErrors,
      paused,
      providers: probes,
      ...(warnings.length > 0 && { warnings }),
      ...this.stateStoreReport(),
    };
  }

  /** The deployment's shared state (`[state] url`; in-process without), which the report and serve-http show. */
  get stateStore(): SharedState {
    return this.pause.store;
  }

  /** Only with a store: without one the report is as it always was. */
  private stateStoreReport(): Pick<HealthReport, 'state_store'> {
    const store = this.pause.store;
    return store === IN_PROCESS ? {} : { state_store: { address: store.address, up: store.up() } };
  }

  private async probe({ name, role, provider, pool }: ChainMember): Promise<ProviderProbe> {
    if (!provider || !pool)
      return { name, role, ok: false, latency_ms: 0, detail: 'not configured (see config_errors)' };
    if (!isPool(pool)) return { name, role, ...(await this.probeEngine(provider, this.cooldown.peekMs(name))) };
    const endpoints = await Promise.all(pool.map((member) => this.probeEndpoint(name, member)));
    const up = endpoints.filter((endpoint) => endpoint.ok && endpoint.state !== 'cooling').length;
    return {
      name,
      role,
      ok: endpoints.some((endpoint) => endpoint.ok),
      latency_ms: Math.max(...endpoints.map((endpoint) => endpoint.latency_ms)),
      detail: `${up} of ${endpoints.length} endpoints up and not cooling down`,
      endpoints,
    };
  }

  private async probeEndpoint(name: string, member: PoolMember): Promise<EndpointProbe> {
    const { cooldown, inFlight } = this.replicas.of(name, member);
    const probe = await this.probeEngine(member.provider, cooldown.remainingMs);
    return {
      url: member.url,
      weight: member.weight,
      ...probe,
      state: cooldown.state,
      cooling_s_left: Math.ceil(cooldown.remainingMs / 1000),
      in_flight: inFlight,
    };
  }

  /** One engine's probe under the attempt timeout, with what is left of its cooldown (read, never claimed). */
  private async probeEngine(
    provider: System1Provider,
    cooling: number,
  ): Promise<Pick<ProviderProbe, 'ok' | 'latency_ms' | 'detail'>> {
    const started = performance.now();
    const timeoutMs = this.config.gateway.timeout_s * 1000;
    const note = cooling > 0 ? `; cooling down: ${Math.ceil(cooling / 1000)} s left` : '';
    try {
      if (!provider.health) return { ok: true, latency_ms: 0, detail: `this engine has no health probe${note}` };
      const result = await withDeadline((signal) => provider.health!({ signal, requestId: 'health' }), timeoutMs);
      // A probe that succeeds does not end a cooldown: /health may answer while decisions hang. Only an answer does.
      return {
        ok: result.ok === true,
        latency_ms: Math.round(performance.now() - started),
        detail: `${String(result.detail)}${note}`,
      };
    } catch (error) {
      const { code, message } = toDecisionError(error, timeoutMs);
      const detail = `${ERROR_MEANINGS[code].failureKind}: ${message}${note}`;
      return { ok: false, latency_ms: Math.round(performance.now() - started), detail };
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
