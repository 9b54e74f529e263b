import * as path from 'node:path';

/**
 * The installed package's root. Clients start the server from any working directory, so shipped files
 * (schemas, fits, package.json) are found from here, never from process.cwd().
 * Compiled layout: dist/common/package-root.js; under jest: src/common/package-root.ts. Both sit two levels down.
 */
export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
