import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '../config/config.loader';
import { GATEWAY_KEYS, type KeySpec } from '../config/config-keys';
import { settingProblem } from '../config/setting-types';
import type { ConfigError } from '../config/config-error';
import { GatewayLogger } from '../logging/gateway.logger';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { checkDto } from '../common/dto-check';
import { ModelRefDto } from '../decisions/dto/request-parts.dto';
import { System1InputError } from '../decisions/errors/input-error';
import type { ModelRef } from '../decisions/questions/question.types';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { RuntimeProviders } from '../decisions/registry/runtime-providers';
import { asProvider, type CustomProvider, type DshProvider, type PickingProvider } from './custom-provider';
import { registration } from './registration';
import type { System1Provider } from '../decisions/registry/provider.interface';
import { libraryChain, libraryDecide } from './library-decide';
import type { System1Options } from './library-options';
import type { DecideRequest, DecideResult } from './library.types';

/** The System-1 decision service for a Node application. */
export interface System1 {
  /**
   * Asks named questions about one state. Throws {@link System1InputError} for a malformed call, before
   * any engine runs; every runtime failure is reported per question instead.
   */
  decide(request: DecideRequest): Promise<DecideResult>;
  /** Adds an engine under `name`; the returned disposer removes it and cancels its calls in flight. */
  registerProvider(name: string, provider: System1Provider | PickingProvider): () => void;
  /** A provider written for dsh-system1 (`describe` and `evaluate(request, signal)`). */
  registerProvider(name: string, provider: DshProvider): () => void;
  registerProvider(name: string, provider: CustomProvider): () => void;
  /**
   * Adds an engine under its own name: a provider factory's `id` (`createTypesafeProvider({ id: 'jev' })`),
   * else its engine's name (`typesafe`).
   */
  registerProvider(provider: System1Provider & { readonly name: string }): () => void;
  /** The engines tried, in order, when a call names no model. */
  chain(): ModelRef[];
  /**
   * Problems in the config file, the environment or a provider's
   * settings: while any is left, calls answer `unavailable`.
   */
  configErrors(): ConfigError[];
  /** Cancels calls in flight and releases the container. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds the decision service over the gateway's own providers, registry and calibration, reading the
 * user's config (or `options.configFile`) the way the MCP server does. A broken config does not throw:
 * every call answers `unavailable` naming the problem (as `system1_decide` answers `config_error`), and
 * {@link System1.configErrors} lists them all.
 */
export async function createSystem1(given: System1Options = {}): Promise<System1> {
  const options = checkOptions(given);
  const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
  const { LibraryModule } = require('./library.module') as typeof import('./library.module');
  const env = {
    ...(options.env ?? process.env),
    ...(options.configFile !== undefined && { SYSTEM1_CONFIG: options.configFile }),
  };
  const config = loadConfig({ env });
  // The cache is built with the service, so its one option is applied to the config it is built from.
  if (options.cacheTtlS !== undefined) config.gateway.cache_ttl_s = options.cacheTtlS;
  const logger = new GatewayLogger(
    options.logger === false ? () => undefined : (options.logger ?? ((line) => process.stderr.write(line))),
  );
  logger.configure(config.gateway.log_level, '');
  const app: INestApplicationContext = await NestFactory.createApplicationContext(LibraryModule.with(config, env), {
    logger,
    abortOnError: false,
  });
  return system1From(app, options, { closeApp: true });
}

/**
 * The same decision service over a Nest application that imports `System1Module.forRoot()` itself (with a
 * team's engine modules beside it): `system1From(app).decide(...)`. Closing it cancels calls in flight; the
 * application is closed too only when `createSystem1` made it.
 *
 * @example
 * ```ts
 * @Module({ imports: [System1Module.forRoot(), MyEngineModule] })
 * class AppModule {}
 * const system1 = system1From(await NestFactory.createApplicationContext(AppModule), {
 *   defaultModel: { provider: 'my-engine' },
 * });
 * ```
 */
export function system1From(
  app: INestApplicationContext,
  given: System1Options = {},
  { closeApp = false }: { closeApp?: boolean } = {},
): System1 {
  const options = checkOptions(given);
  if (options.cacheTtlS !== undefined && !closeApp) {
    throw new System1InputError(
      'cacheTtlS',
      'is an option of createSystem1; with system1From, ' +
        'set [gateway] cache_ttl_s in the config System1Module.forRoot() reads',
    );
  }
  const decisions = app.get(DecisionService);
  const runtime = app.get(RuntimeProviders);
  const registry = app.get(ProviderRegistry);
  let closed = false;

  return {
    decide: (request) => {
      if (closed) return Promise.reject(new System1InputError('the service', 'is closed'));
      return libraryDecide(decisions, request, options);
    },
    registerProvider: (...args: [string, CustomProvider] | [CustomProvider]) => {
      const { name, engine } = registration(args);
      return runtime.register(name, asProvider(name, engine), (taken) => registry.knows(taken));
    },
    chain: () => decisions.chainFor(undefined, { chain: libraryChain(decisions, options) }),
    configErrors: () => app.get(ConfigStatus).errors(),
    close: async () => {
      if (closed) return;
      closed = true;
      runtime.clear();
      if (closeApp) await app.close();
    },
  };
}

/**
 * Malformed options are refused when the service is created, not at the first call (dsh-system1). Returns
 * them with the values read as the config reads them (`hedgeAfterMs: "off"` is 0).
 */
function checkOptions(options: System1Options): System1Options {
  const fail = (field: string, problem: string): never => {
    throw new System1InputError(field, problem);
  };
  if (typeof options !== 'object' || options === null) fail('the options', 'must be an object');
  const check = (value: unknown, field: string) => {
    const [first] = checkDto(ModelRefDto, value, field, 'a model reference {provider, model?}');
    if (first) fail(first.field, first.problem);
  };
  if (options.defaultModel !== undefined) check(options.defaultModel, 'defaultModel');
  if (options.fallbackModels !== undefined) {
    if (!Array.isArray(options.fallbackModels)) fail('fallbackModels', 'must be a list of {provider, model?}');
    options.fallbackModels.forEach((model, index) => check(model, `fallbackModels[${index}]`));
  }
  if (options.timeoutMs !== undefined && !(Number.isSafeInteger(options.timeoutMs) && options.timeoutMs > 0)) {
    fail('timeoutMs', 'must be a positive whole number of milliseconds');
  }
  if (
    options.minConfidence !== undefined &&
    !(typeof options.minConfidence === 'number' && options.minConfidence >= 0 && options.minConfidence <= 1)
  ) {
    fail('minConfidence', 'must be a number from 0 to 1');
  }
  if (
    options.callerModels !== undefined &&
    !(
      Array.isArray(options.callerModels) &&
      options.callerModels.every((entry) => typeof entry === 'string' && entry.trim() !== '')
    )
  ) {
    fail('callerModels', 'must be a list of provider, provider:model, provider:* or * entries');
  }
  if (options.cooldown !== undefined && typeof options.cooldown !== 'boolean')
    fail('cooldown', 'must be true or false');
  if (options.waitForRecovery !== undefined && typeof options.waitForRecovery !== 'boolean')
    fail('waitForRecovery', 'must be true or false');
  return {
    ...options,
    ...(options.hedgeAfterMs !== undefined && {
      hedgeAfterMs: asSetting('hedgeAfterMs', options.hedgeAfterMs, GATEWAY_KEYS.hedge_after_ms),
    }),
    ...(options.cacheTtlS !== undefined && {
      cacheTtlS: asSetting('cacheTtlS', options.cacheTtlS, GATEWAY_KEYS.cache_ttl_s),
    }),
  };
}

/**
 * An option that stands for a config key, read by that key's own setting type (same range, same words,
 * `"off"` too), so the library and the config cannot drift apart; a refusal names the option.
 */
function asSetting<T>(option: string, value: unknown, key: KeySpec<T>): T {
  try {
    return key.type.fromFile(value);
  } catch (error) {
    throw new System1InputError(option, settingProblem(error));
  }
}
