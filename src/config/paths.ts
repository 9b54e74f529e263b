import * as path from 'node:path';

/**
 * The installed package's root. Clients start the server from any working directory, so shipped files
 * (schemas, fits, package.json) are found from here, never from process.cwd().
 * Compiled layout: dist/config/paths.js; under jest: src/config/paths.ts. Both sit two levels down.
 */
export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

// The rules themselves live in plain JavaScript, because the install scripts use them before any build.
export { homeOf, expandHome, locateConfigFile, installDir } from './locations.js';
export type { Env, ConfigLocation } from './locations.js';
