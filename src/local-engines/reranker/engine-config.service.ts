import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { parse } from 'smol-toml';
import { FILE_CAPS, readRegularFileSync } from '../../common/regular-file';
import { shown } from '../../common/clip';
import { ConfigEditError, setConfigValues } from '../../config/config-edit';
import { GATEWAY_KEYS } from '../../config/config-keys';
import { locateConfigFile } from '../../config/paths';
import { type TimeoutPlan, timeoutFor } from './engine-timeout';

export type ConfigOutcome =
  /** The config named no provider, or the mock: it now names the reranker. */
  | { kind: 'set'; file: string; before: string | undefined; note?: string }
  /** The config already points the systemone provider at this endpoint. */
  | { kind: 'already'; file: string; note?: string }
  /** The config made another choice (or cannot be edited): the lines to add, for the user to decide. */
  | { kind: 'by-hand'; file: string; why: string; lines: string[]; note?: string };

export type TimeoutOutcome =
  /** The file's timeout_s (or the default) was below what a typical decision needs: it now has that. */
  | { kind: 'raised'; file: string; from_s: number; plan: TimeoutPlan; note?: string }
  /** The file's timeout_s (or the default, when it sets none) already covers it: left as it is. */
  | { kind: 'enough'; file: string; current_s: number; isDefault: boolean; plan: TimeoutPlan; note?: string }
  /** Not this command's to change (the user chose another provider) or not editable: the line to add. */
  | { kind: 'by-hand'; file: string; why: string; line: string; plan: TimeoutPlan; note?: string }
  /** The file cannot be read as TOML, or its timeout_s is not a valid value: nothing to compare with. */
  | { kind: 'unreadable'; file: string; why: string; note?: string };

type ConfigDoc = {
  gateway?: { provider?: unknown; timeout_s?: unknown };
  providers?: { systemone?: { endpoint?: unknown } };
};

/** The config file as TOML ({} when there is none), or why it could not be read. */
function readConfigDoc(file: string): { doc: ConfigDoc } | { why: string } {
  try {
    return { doc: existsSync(file) ? parse(readRegularFileSync(file, FILE_CAPS.config)) : {} };
  } catch (error) {
    return { why: `it could not be read as TOML (${(error as Error).message.split('\n')[0]})` };
  }
}

/** An environment variable that overrides the file's key, said as a note. */
function overrideNote(env: NodeJS.ProcessEnv, variable: string, key: string, unless?: string): string | undefined {
  const value = env[variable]?.trim();
  return value && value !== unless ? `${variable}=${value} in this environment overrides the file's ${key}` : undefined;
}

/** The providers a setup without an engine leaves: choosing the reranker over them takes nothing from the user. */
const REPLACEABLE = [undefined, 'mock'];

/**
 * Points the user's config at a started reranker when that changes no choice the user made: a config with no
 * provider (the default would be laya, which a user without an engine does not run) or the mock gets
 * `[gateway] provider = "systemone"` and `[providers.systemone] endpoint`, through the one config editor;
 * any other provider is the user's choice, so the lines are only printed.
 */
@Injectable()
export class EngineConfig {
  pointAt(endpoint: string, env: NodeJS.ProcessEnv): ConfigOutcome {
    const file = locateConfigFile(env).path;
    const settings = [
      { table: 'gateway', key: 'provider', value: 'systemone' },
      { table: 'providers.systemone', key: 'endpoint', value: endpoint },
    ];
    const lines = ['[gateway]', 'provider = "systemone"', '[providers.systemone]', `endpoint = "${endpoint}"`];
    const note = overrideNote(env, 'SYSTEM1_PROVIDER', 'provider', 'systemone');
    const read = readConfigDoc(file);
    if ('why' in read) return { kind: 'by-hand', file, why: read.why, lines, note };
    const { doc } = read;
    const provider =
      typeof doc.gateway?.provider === 'string'
        ? doc.gateway.provider
        : doc.gateway?.provider === undefined
          ? undefined
          : JSON.stringify(doc.gateway.provider);
    if (provider === 'systemone' && doc.providers?.systemone?.endpoint === endpoint)
      return { kind: 'already', file, note };
    if (!REPLACEABLE.includes(provider))
      return { kind: 'by-hand', file, why: `it uses the provider "${provider}", your choice`, lines, note };
    try {
      setConfigValues(file, settings);
    } catch (error) {
      if (!(error instanceof ConfigEditError)) throw error;
      return { kind: 'by-hand', file, why: error.message, lines, note };
    }
    return { kind: 'set', file, before: provider, note };
  }

  /**
   * Raises `[gateway] timeout_s` to cover a typical decision predicted at `predicted20Ms` (engine-timeout.ts),
   * through the one config editor, when the config is one `pointAt` pointed at the reranker (`pointed` set or
   * already); never lowers a value; for a config that chose another provider, gives the line to add instead.
   */
  coverTimeout(predicted20Ms: number, pointed: ConfigOutcome, env: NodeJS.ProcessEnv): TimeoutOutcome {
    const { file } = pointed;
    const note = overrideNote(env, 'SYSTEM1_TIMEOUT_S', 'timeout_s');
    const read = readConfigDoc(file);
    if ('why' in read) return { kind: 'unreadable', file, why: read.why, note };
    const set = read.doc.gateway?.timeout_s;
    let current: number;
    try {
      current = set === undefined ? GATEWAY_KEYS.timeout_s.default : GATEWAY_KEYS.timeout_s.type.fromFile(set);
    } catch {
      return { kind: 'unreadable', file, why: `its timeout_s ${shown(set)} is not a valid value`, note };
    }
    const plan = timeoutFor(predicted20Ms, current);
    if (!plan.raise) return { kind: 'enough', file, current_s: current, isDefault: set === undefined, plan, note };
    const line = `timeout_s = ${plan.value_s}`;
    if (pointed.kind === 'by-hand') return { kind: 'by-hand', file, why: pointed.why, line, plan, note };
    try {
      setConfigValues(file, [{ table: 'gateway', key: 'timeout_s', value: plan.value_s }]);
    } catch (error) {
      if (!(error instanceof ConfigEditError)) throw error;
      return { kind: 'by-hand', file, why: error.message, line, plan, note };
    }
    return { kind: 'raised', file, from_s: current, plan, note };
  }
}
