/**
 * A built-in engine says which variable holds its key, or that it takes none: the echoed-key suite and the
 * secret sweep read their lists from these declarations, so a keyed engine added to BUILT_IN_PROVIDERS is
 * under them without anyone editing a test list.
 */
import type { ProviderSettingSpecs, System1Provider } from '../../../src/decisions/registry/provider.interface';
import { BUILT_IN_PROVIDERS, type BuiltInProviderDefinition } from '../../../src/providers/built-in';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { gatewayApp } from '../../helpers/gateway-app';
import { keyedBuiltInEngines } from '../../helpers/keyed-engines';

/** A definition as a contributor might write it, saying nothing of a key. */
class Unsaid {
  readonly name = 'unsaid';
  readonly description = 'a new engine';
  readonly settings: ProviderSettingSpecs<Record<string, never>> = {};
  create(): System1Provider {
    throw new Error('never built');
  }
}

it('will not take a built-in definition that says nothing of its key (checked by npm run lint:types)', () => {
  // @ts-expect-error keyVariable is missing: a built-in names its key variable, or sets it to undefined
  const unsaid: new (http: EngineHttpClient) => BuiltInProviderDefinition = Unsaid;
  expect(new unsaid(new EngineHttpClient()).name).toBe('unsaid');
});

it('names one variable per keyed engine, each a plain environment variable name, and publishes it', async () => {
  const keyed = keyedBuiltInEngines();
  expect(keyed.map(({ provider }) => provider)).toEqual(
    expect.arrayContaining(['laya', 'von', 'systemone', 'typesafe', 'cloudflare', 'openai', 'anthropic']),
  );
  for (const { variable } of keyed) expect(variable).toMatch(/^[A-Z][A-Z0-9_]*$/);
  expect(new Set(keyed.map(({ variable }) => variable)).size).toBe(keyed.length);

  const app = await gatewayApp();
  try {
    const published = app.get(CapabilitiesService).capabilities().available_providers;
    const http = new EngineHttpClient();
    for (const Definition of BUILT_IN_PROVIDERS) {
      const { name, keyVariable } = new Definition(http);
      expect(published.find((provider) => provider.name === name)).toMatchObject({ key_variable: keyVariable ?? null });
    }
  } finally {
    await app.close();
  }
});
