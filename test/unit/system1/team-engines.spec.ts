/** `[engines] modules`: a team's engines loaded from the config, or a config error naming the module. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../../src/config/config.loader';
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { teamEngines } from '../../../src/system1/team-engines';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'system1-team-engines-'));
  writeFileSync(
    path.join(dir, 'good.js'),
    "exports.engines = [class { constructor(http) { this.name = 'team'; this.http = http; } create() {} }];",
  );
  writeFileSync(path.join(dir, 'none.js'), 'exports.other = 1;');
  writeFileSync(path.join(dir, 'odd.js'), 'exports.engines = [42, class { constructor() { this.name = 7; } }];');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config file in `dir` naming `modules`, each relative to it. */
const configNaming = (...modules: string[]) =>
  loadConfig({
    env: { HOME: '/test/home', SYSTEM1_CONFIG: path.join(dir, 'config.toml') },
    readFile: () => `[engines]\nmodules = ${JSON.stringify(modules)}\n`,
  });

it('builds each class a module exports, with the shared HTTP client, from a path relative to the config file', () => {
  const config = configNaming('good.js');
  const http = new EngineHttpClient();
  const [engine, ...rest] = teamEngines(config, http);
  expect(rest).toEqual([]);
  expect(engine).toMatchObject({ name: 'team', http });
  expect(config.errors).toEqual([]);
});

it('loads nothing when no module is named', () => {
  expect(teamEngines(configNaming(), new EngineHttpClient())).toEqual([]);
});

it('reports a module it cannot use as a config error on engines.modules, once per config', () => {
  const config = configNaming('missing.js', 'none.js', 'odd.js');
  const http = new EngineHttpClient();
  expect(teamEngines(config, http)).toEqual([]);
  expect(teamEngines(config, http)).toEqual([]);
  expect(config.errors.map((error) => [error.key, error.message])).toEqual([
    ['engines.modules', expect.stringMatching(/missing\.js" could not be loaded: (Error: )?Cannot find module/)],
    ['engines.modules', expect.stringContaining('none.js" exports no `engines` list')],
    ['engines.modules', expect.stringContaining('odd.js" engines[0] is not a class')],
    ['engines.modules', expect.stringContaining('odd.js" engines[1] is not a provider definition')],
  ]);
});
