import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { CalibrationService, SHIPPED_FITS } from '../calibration/calibration.service';
import { isTrusted } from '../calibration/fit-choice';
import { ChainMember, ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { ReplicaStates } from '../decisions/pools/replica-states';
import { isPool } from '../decisions/registry/engine-pool';
import { System1Provider } from '../decisions/registry/provider.interface';
import { questionCapabilitiesOf } from '../decisions/questions/question-capabilities';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { ToolCatalog } from './tool-catalog';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-revisions';
import { GATEWAY_VERSION, SCHEMA_VERSIONS } from '../common/version';
import { REQUEST_LIMITS } from '../common/limits';
import { MAX_IMAGES } from '../decisions/dto/request-parts.dto';

/** `system1_capabilities`: what this gateway is, how it is set up, and the contract it speaks. */
@Injectable()
export class CapabilitiesService {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly configStatus: ConfigStatus,
    private readonly tools: ToolCatalog,
    private readonly calibration: CalibrationService,
    private readonly replicas: ReplicaStates,
  ) {}

  /** A pool's replicas with their weight, cooldown state and requests in flight (read, never claimed). */
  private endpointsOf({ name, pool }: ChainMember) {
    if (!pool || !isPool(pool)) return {};
    return {
      endpoints: pool.map((member) => {
        const { cooldown, inFlight } = this.replicas.of(name, member);
        return { url: member.url, weight: member.weight, state: cooldown.state, in_flight: inFlight };
      }),
    };
  }

  private calibrationSummary() {
    const { fits, problems } = this.calibration.load();
    return {
      user_file: this.calibration.userFile,
      shipped_file: SHIPPED_FITS,
      fits: fits.map((fit) => ({
        provider: fit.provider,
        model: fit.model,
        ...(fit.question !== undefined ? { question: fit.question } : { option_count: fit.option_count }),
        temperature: fit.temperature,
        n: fit.n,
        at_bound: fit.at_bound,
        // Only a trusted fit is applied to decisions; an untrusted one is listed so a user sees why not.
        trusted: isTrusted(fit),
        source: fit.source,
        file: fit.file,
      })),
      problems,
    };
  }

  capabilities() {
    const chain = this.registry.chain();
    return {
      gateway_version: GATEWAY_VERSION,
      schema_version: SCHEMA_VERSIONS.response,
      schema_versions: SCHEMA_VERSIONS,
      tools: this.tools.names(),
      mcp_protocol_versions: [...SERVED_PROTOCOL_VERSIONS],
      provider_chain: chain.map((member) => ({ name: member.name, role: member.role, ...this.endpointsOf(member) })),
      timeout_s: this.config.gateway.timeout_s,
      min_confidence: this.config.gateway.min_confidence,
      // What a call may hold before any engine is asked; each engine may take less (its `questions`).
      limits: { ...REQUEST_LIMITS, images_max: MAX_IMAGES },
      providers: Object.fromEntries(
        chain.map(({ name, provider }) => [name, provider ? withQuestionTypes(provider) : null]),
      ),
      calibration: this.calibrationSummary(),
      available_providers: this.registry.available().map((definition) => ({
        name: definition.name,
        description: definition.description,
        key_variable: definition.keyVariable ?? null,
        settings: Object.fromEntries(
          Object.entries(definition.settings).map(([key, spec]) => [
            key,
            { default: spec.default ?? null, accepts: spec.type.expects, describe: spec.describe },
          ]),
        ),
      })),
      config_errors: this.configStatus.errors(),
      // Each tool's request and response schema, named after its file (`ask-request.json`: `ask_request_schema`).
      ...this.tools.capabilitySchemas(),
    };
  }
}

/** A provider's facts, with the typed questions the library can ask it (natively or as choices). */
function withQuestionTypes(provider: System1Provider) {
  const capabilities = provider.capabilities();
  return { ...capabilities, questions: questionCapabilitiesOf(capabilities) };
}
