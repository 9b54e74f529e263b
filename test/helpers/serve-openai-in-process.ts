import type { TestingModule } from '@nestjs/testing';
import { DecisionsApiParts } from '../../src/commands/decisions-api-parts';
import type { LoadedConfig } from '../../src/config/config.loader';
import { system1Config } from '../../src/config/system1.config';
import { CallerModels } from '../../src/decisions/callers/caller-models.service';
import { DecisionService } from '../../src/decisions/pipeline/decision.service';
import { ProviderRegistry } from '../../src/decisions/registry/provider-registry.service';
import { pipelineDecider } from '../../src/openai-router/fast-decider';
import { OpenAiRouterService } from '../../src/openai-router/openai-router.service';
import { settleRouterOptions } from '../../src/openai-router/router-options';
import type { RouterLimits } from '../../src/openai-router/router-limits';
import { gatewayApp, type GatewayAppOptions } from './gateway-app';
import type { InProcessServer } from './serve-http-in-process';

/** What differs from the config for the router: its upstream (a fake's base URL) and its limits. */
export interface RouterSetup {
  upstream: string;
  limits?: Partial<RouterLimits>;
}

/**
 * Starts serve-openai over the gateway's Nest container with this config and environment (its token variable
 * included) on 127.0.0.1, the way `system1 serve-openai` does: the pipeline as its fast engine, the Decisions
 * API from the builder serve-http uses, its start-up problems thrown, not printed. Its log lines (the router's,
 * the API's, the pipeline's) are kept in `logs`.
 */
export async function startServeOpenAi(
  options: GatewayAppOptions,
  { upstream, limits }: RouterSetup,
  port = 0,
): Promise<InProcessServer> {
  const logs: string[] = [];
  const app: TestingModule = await gatewayApp({ ...options, logs });
  const config = app.get<LoadedConfig>(system1Config.KEY);
  const env = { HOME: '/test/home', ...options.env };
  const decisions = app.get(DecisionService);
  const decisionsApi = new DecisionsApiParts(config, decisions, app.get(ProviderRegistry), app.get(CallerModels));
  const settled = settleRouterOptions(config, { host: '127.0.0.1', port, upstream }, env);
  const problems = [...settled.problems, ...decisionsApi.problems()];
  if (!settled.options || problems.length > 0) {
    await app.close();
    throw new Error(`serve-openai would not start: ${problems.join('; ')}`);
  }
  const router = new OpenAiRouterService(pipelineDecider(decisions, config.gateway.timeout_s * 1000));
  let running;
  try {
    running = await router.listen(
      { ...settled.options, ...(limits && { limits }) },
      decisionsApi.api((line) => logs.push(line)),
    );
  } catch (error) {
    await app.close();
    throw error;
  }
  const origin = new URL(running.baseUrl).origin;
  return {
    origin,
    port: Number(new URL(origin).port),
    logs,
    stop: async () => {
      await running.close();
      await app.close();
    },
  };
}
