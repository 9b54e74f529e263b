import { settingProblem } from '../../config/setting-types';
import {
  type ProviderCreateContext,
  type ProviderDefinition,
  ProviderSettingError,
  type System1Provider,
} from './provider.interface';

/**
 * Where one provider's setting values come from, lowest precedence first (after the definition's defaults).
 * The registry reads a config table and the environment; a library factory, the options it was given.
 */
export interface SettingSources {
  /** `[providers.<name>]` as TOML typed it, read with each type's `fromFile`. */
  file?: Readonly<Record<string, unknown>>;
  /** Overrides from the environment (always text), and the variable that overrides each key. */
  env?: { values: Readonly<Record<string, string | undefined>>; variable: (key: string) => string };
  /** Values a caller chose (a factory's options, a model named by a call), read as text like the environment. */
  chosen?: Readonly<Record<string, unknown>>;
}

/**
 * What stops a provider from being configured, in parts, so each caller words it in its own contract (a
 * config error naming the file and key, or the library's input error naming the option).
 */
export type SettingProblem =
  /** A key the definition does not have: a typo in the table, or a value chosen for a setting it lacks. */
  | { kind: 'unknown'; source: 'file' | 'chosen'; key: string; value: unknown }
  /** A value its setting type refused; `message` is safe to show (it never echoes a secret). */
  | { kind: 'invalid'; source: 'file' | 'chosen'; key: string; message: string }
  | { kind: 'invalid'; source: 'env'; key: string; variable: string; message: string }
  /** `create` refused a combination of settings (a `ProviderSettingError`). */
  | { kind: 'refused'; key: string; message: string }
  /** `create` failed some other way; the error's text may carry request data, so only its class is shown. */
  | { kind: 'failed'; error: unknown };

/** Settings for `definition.create`, or every problem found (not only the first). */
export type SettingsRead =
  { ok: true; settings: Readonly<Record<string, unknown>> } | { ok: false; problems: SettingProblem[] };

/**
 * The one reading of a provider's settings: the definition's defaults, then the file's values, then the
 * environment's, then the chosen ones, each parsed by the setting's type. Read for `definition`, the result
 * is the typed settings its `create` declares (`ProviderDefinition<S>`): every key of `S` has a spec, a
 * setting `S` always has has a default, and each type returns its setting's value type.
 *
 * @example
 * const read = readProviderSettings(definition, { chosen: { model: 'english' } });
 * if (read.ok) definition.create(read.settings, { env: process.env });
 */
export function readProviderSettings(definition: ProviderDefinition, sources: SettingSources): SettingsRead {
  const { file = {}, env, chosen = {} } = sources;
  const specs = definition.settings;
  const problems: SettingProblem[] = [];
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(file)) {
    if (!Object.hasOwn(specs, key)) problems.push({ kind: 'unknown', source: 'file', key, value: file[key] });
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (spec.default !== undefined) settings[key] = spec.default;
    try {
      if (Object.hasOwn(file, key)) settings[key] = spec.type.fromFile(file[key]);
    } catch (error) {
      problems.push({ kind: 'invalid', source: 'file', key, message: settingProblem(error) });
    }
    const variable = env?.variable(key);
    const text = variable === undefined ? undefined : env?.values[variable];
    try {
      if (text !== undefined) settings[key] = spec.type.fromEnv(text);
    } catch (error) {
      problems.push({ kind: 'invalid', source: 'env', key, variable: variable!, message: settingProblem(error) });
    }
  }
  for (const [key, value] of Object.entries(chosen)) {
    if (!Object.hasOwn(specs, key)) {
      problems.push({ kind: 'unknown', source: 'chosen', key, value });
      continue;
    }
    try {
      settings[key] = specs[key].type.fromEnv(String(value));
    } catch (error) {
      problems.push({ kind: 'invalid', source: 'chosen', key, message: settingProblem(error) });
    }
  }
  return problems.length === 0 ? { ok: true, settings } : { ok: false, problems };
}

/** `definition.create`, with what it throws turned into a {@link SettingProblem}. */
export function createProvider(
  definition: ProviderDefinition,
  settings: Readonly<Record<string, unknown>>,
  context: ProviderCreateContext,
): { provider: System1Provider } | { problem: SettingProblem } {
  try {
    return { provider: definition.create(settings, context) };
  } catch (error) {
    if (error instanceof ProviderSettingError)
      return { problem: { kind: 'refused', key: error.key, message: error.message } };
    return { problem: { kind: 'failed', error } };
  }
}
