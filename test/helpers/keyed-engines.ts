import { BUILT_IN_PROVIDERS } from '../../src/providers/built-in';
import { EngineHttpClient } from '../../src/providers/http/engine-http.client';

/**
 * The security suites (echoed keys, the secret sweep) must cover every built-in engine that takes a key. The
 * key's variable is not part of a definition, so each suite lists its engines, and this says which built-in
 * engines a suite left out: a new engine fails those suites until it is added to them, or named keyless here.
 */
const KEYLESS = new Set(['mock', 'ollama']);

export function keyedBuiltInEngines(): string[] {
  const http = new EngineHttpClient();
  return BUILT_IN_PROVIDERS.map((Definition) => new Definition(http).name).filter((name) => !KEYLESS.has(name));
}

export function keyedEnginesLeftOut(covered: Iterable<string>): string[] {
  const listed = new Set(covered);
  return keyedBuiltInEngines().filter((name) => !listed.has(name));
}
