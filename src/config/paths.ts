export { PACKAGE_ROOT } from '../common/package-root';

// The rules themselves live in plain JavaScript, because the install scripts use them before any build.
export { homeOf, expandHome, locateConfigFile, installDir } from './locations.js';
export type { Env, ConfigLocation } from './locations.js';
