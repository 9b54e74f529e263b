import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_ROOT } from './package-root';
import { SCHEMA_VERSION } from './limits';

/** The installed package's version, read once from its package.json. */
export const GATEWAY_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

export const SCHEMA_VERSIONS = { request: SCHEMA_VERSION, response: SCHEMA_VERSION } as const;
