import { homedir } from 'node:os';
import * as path from 'node:path';

/**
 * The installed package's root. Clients start the server from any working directory, so shipped files
 * (schemas, fits, package.json) are found from here, never from process.cwd().
 * Compiled layout: dist/config/paths.js; under jest: src/config/paths.ts. Both sit two levels down.
 */
export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

export type Env = Readonly<Record<string, string | undefined>>;

/** The user's home as the environment gives it (tests and sandboxes set HOME), else the OS account's. */
export function homeOf(env: Env): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** Expands a leading `~` the way a shell would, since TOML values and env vars arrive unexpanded. */
export function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/') || value.startsWith('~\\')) return path.join(home, value.slice(2));
  return value;
}

/** Where the config file is looked for; `explicit` means the user named it, so a missing file is an error. */
export interface ConfigLocation {
  path: string;
  explicit: boolean;
}

export function locateConfigFile(env: Env, platform: NodeJS.Platform = process.platform): ConfigLocation {
  if (env.SYSTEM1_CONFIG) return { path: expandHome(env.SYSTEM1_CONFIG, homeOf(env)), explicit: true };
  if (platform === 'win32' && env.APPDATA) {
    return { path: path.join(env.APPDATA, 'system1', 'config.toml'), explicit: false };
  }
  const base = env.XDG_CONFIG_HOME || path.join(homeOf(env), '.config');
  return { path: path.join(base, 'system1', 'config.toml'), explicit: false };
}

/** The install dir holds the pause file, the user's calibration.json and the routing log. */
export function installDir(env: Env): string {
  if (env.SYSTEM1_INSTALL_DIR) return path.resolve(expandHome(env.SYSTEM1_INSTALL_DIR, homeOf(env)));
  return path.join(homeOf(env), '.system1-gateway');
}
