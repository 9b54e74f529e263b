/**
 * config.example.toml is where a user learns which keys exist: every key of the config schema
 * (src/config/config-keys.ts) and every built-in provider's settings has a line there, commented or not, and
 * no line names a key the gateway would refuse. A key added without an example line fails here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { DECISION_MODEL_KEYS, HTTP_CALLER_KEYS, HTTP_OAUTH_KEYS, SECTIONS } from '../../../src/config/config-keys';
import type { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { BUILT_IN_PROVIDERS } from '../../../src/providers/built-in';

const EXAMPLE = readFileSync(path.join(__dirname, '..', '..', '..', 'config.example.toml'), 'utf8');

/** `[table]` or `# [table]`; the example comments out the tables a user has to opt into. */
const HEADER = /^#?\s*\[([A-Za-z0-9_.-]+)\]\s*(#.*)?$/;
/** `key = value` or `# key = value`; a comment's continuation line (`#   # ...`) and prose do not match. */
const KEY = /^#?\s*([a-z][a-z0-9_]*)\s*=/;

/** The keys the example shows under each table, commented-out ones included. */
function exampleKeys(text: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  let table: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const header = HEADER.exec(line.trim());
    if (header) {
      table = header[1];
      tables.set(table, tables.get(table) ?? []);
      continue;
    }
    const key = KEY.exec(line.trim());
    if (key && table) tables.get(table)!.push(key[1]);
  }
  return tables;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();
const shown = exampleKeys(EXAMPLE);
const providers = BUILT_IN_PROVIDERS.map((Definition) => new Definition({} as EngineHttpClient));

describe('config.example.toml', () => {
  it('is valid TOML as shipped (the installer copies it as the user config)', () => {
    expect(() => parse(EXAMPLE)).not.toThrow();
  });

  it.each(Object.keys(SECTIONS))('[%s] shows every key of the schema, and no other', (section) => {
    expect(sorted(shown.get(section) ?? [])).toEqual(sorted(Object.keys(SECTIONS[section as keyof typeof SECTIONS])));
  });

  it.each([
    ['http.callers.alice', HTTP_CALLER_KEYS],
    ['http.oauth', HTTP_OAUTH_KEYS],
    ['decisions.models.triage', DECISION_MODEL_KEYS],
  ] as const)('[%s] (a table inside a section) shows every key of its schema, and no other', (table, keys) => {
    expect(sorted(shown.get(table) ?? [])).toEqual(sorted(Object.keys(keys)));
  });

  it.each(providers.map((provider) => [provider.name, provider] as const))(
    '[providers.%s] shows every setting of the provider, and no other',
    (name, provider) => {
      expect(sorted(shown.get(`providers.${name}`) ?? [])).toEqual(sorted(Object.keys(provider.settings)));
    },
  );

  it('reads commented-out keys and tables, and finds a schema key missing from the text', () => {
    const keys = exampleKeys(
      '[gateway]\n# provider = "laya"   # the primary engine\n#                  # a continuation, not a key\n# [providers.extra]\n# type = "ollama"\n',
    );
    expect(Object.fromEntries(keys)).toEqual({ gateway: ['provider'], 'providers.extra': ['type'] });
    expect(sorted(keys.get('gateway')!)).not.toEqual(sorted(Object.keys(SECTIONS.gateway)));
  });
});
