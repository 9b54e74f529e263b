import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { parse } from 'smol-toml';
import { FILE_CAPS, readRegularFileSync } from '../../common/regular-file';
import { ConfigEditError, setConfigValues } from '../../config/config-edit';
import { locateConfigFile } from '../../config/paths';

export type ConfigOutcome =
  /** The config named no provider, or the mock: it now names the reranker. */
  | { kind: 'set'; file: string; before: string | undefined; note?: string }
  /** The config already points the systemone provider at this endpoint. */
  | { kind: 'already'; file: string; note?: string }
  /** The config made another choice (or cannot be edited): the lines to add, for the user to decide. */
  | { kind: 'by-hand'; file: string; why: string; lines: string[]; note?: string };

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
    const override = env.SYSTEM1_PROVIDER?.trim();
    const note =
      override && override !== 'systemone'
        ? `SYSTEM1_PROVIDER=${override} in this environment overrides the file's provider`
        : undefined;
    let doc: { gateway?: { provider?: unknown }; providers?: { systemone?: { endpoint?: unknown } } };
    try {
      doc = existsSync(file) ? parse(readRegularFileSync(file, FILE_CAPS.config)) : {};
    } catch (error) {
      return {
        kind: 'by-hand',
        file,
        why: `it could not be read as TOML (${(error as Error).message.split('\n')[0]})`,
        lines,
        note,
      };
    }
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
}
