import { delimiter } from 'node:path';
import { decimal, flag, list, SettingType, text } from './setting-types';

/**
 * Every key of `[gateway]`, `[routing]` and `[skills]`: its default, its range and its variable.
 * The variable is `SYSTEM1_<KEY>` for `[gateway]` and `SYSTEM1_<SECTION>_<KEY>` for the others.
 */
export interface KeySpec<T = unknown> {
  type: SettingType<T>;
  /** `undefined` = derived after loading (routing's threshold and log file). */
  default: T | undefined;
}

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const threshold = decimal({ min: 0, max: 1 });

export const GATEWAY_KEYS = {
  provider: { type: text({ nonEmpty: true }), default: 'laya' },
  fallback: { type: list(','), default: [] as string[] },
  timeout_s: { type: decimal({ min: 0, max: 300, minExclusive: true }), default: 5.0 },
  min_confidence: { type: threshold, default: 0.6 },
  log_level: { type: text({ choices: LOG_LEVELS, upperCase: true }), default: 'INFO' },
  log_file: { type: text(), default: '' },
} satisfies Record<string, KeySpec>;

export const ROUTING_KEYS = {
  enabled: { type: flag(), default: false },
  hint: { type: flag(), default: true },
  // Windows paths contain ':', so the list separator follows the platform's PATH separator.
  log_dirs: { type: list(delimiter), default: [] as string[] },
  log_file: { type: text({ nonEmpty: true }), default: undefined },
  min_confidence: { type: threshold, default: undefined },
} satisfies Record<string, KeySpec>;

export const SKILLS_KEYS = {
  enabled: { type: flag(), default: false },
  hint: { type: flag(), default: false },
  min_confidence: { type: threshold, default: 0.8 },
} satisfies Record<string, KeySpec>;

export const SECTIONS = { gateway: GATEWAY_KEYS, routing: ROUTING_KEYS, skills: SKILLS_KEYS } as const;
export type SectionName = keyof typeof SECTIONS;

type Values<K extends Record<string, KeySpec>> = {
  [P in keyof K]: K[P] extends KeySpec<infer T> ? T : never;
};

export type GatewaySettings = Values<typeof GATEWAY_KEYS> & { log_level: LogLevel };
export type RoutingSettings = Values<typeof ROUTING_KEYS>;
export type SkillsSettings = Values<typeof SKILLS_KEYS>;

export function envName(section: SectionName, key: string): string {
  const prefix = section === 'gateway' ? 'SYSTEM1_' : `SYSTEM1_${section.toUpperCase()}_`;
  return prefix + key.toUpperCase();
}
