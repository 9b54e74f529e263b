import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { HealthService } from '../decisions/pipeline/health.service';
import { EndpointLoad } from '../decisions/pools/endpoint-load.service';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import type { ServeHttpDeps } from '../http-server/serve-http';
import { McpServerService } from '../mcp/mcp-server.service';

/**
 * What serve-http's server takes from the application (the MCP server factory, the decisions it observes,
 * health, each endpoint's load, the provider names its metrics may carry), gathered apart from the command,
 * which only parses flags, starts the server and waits for the signal to stop.
 */
@Injectable()
export class ServeHttpParts {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly mcp: McpServerService,
    private readonly decisions: DecisionService,
    private readonly health: HealthService,
    private readonly load: EndpointLoad,
    private readonly registry: ProviderRegistry,
  ) {}

  deps(log: (line: string) => void, warn: (line: string) => void): ServeHttpDeps {
    return {
      mcp: this.mcp,
      decisions: this.decisions,
      health: this.health,
      endpoints: this.load,
      state: this.health.stateStore,
      providerNames: [
        ...this.registry.available().map((definition) => definition.name),
        ...Object.keys(this.config.providerTables),
      ],
      log,
      warn,
    };
  }
}
