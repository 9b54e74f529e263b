import { BUILT_IN_PROVIDERS } from '../../src/providers/built-in';
import { EngineHttpClient } from '../../src/providers/http/engine-http.client';

/** A built-in engine that takes a key, and the variable its definition reads the key from. */
export interface KeyedEngine {
  provider: string;
  variable: string;
}

/**
 * The security suites (echoed keys, the secret sweep) cover every built-in engine whose definition names a
 * `keyVariable`: read from the definitions, so a keyed engine added to BUILT_IN_PROVIDERS is under them
 * from its first line (and fails them until its fake is there).
 */
export function keyedBuiltInEngines(): KeyedEngine[] {
  const http = new EngineHttpClient();
  return BUILT_IN_PROVIDERS.map((Definition) => new Definition(http)).flatMap(({ name, keyVariable }) =>
    keyVariable === undefined ? [] : [{ provider: name, variable: keyVariable }],
  );
}
