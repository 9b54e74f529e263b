/** Files the gateway cannot read or write are reported in plain words; decisions go on. */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { requireBuild, Resources, runCli } from './helpers/gateway';

beforeAll(requireBuild);
const resources = Resources.perTest();

it('says so when the pause file cannot be written, and keeps deciding', async () => {
  const sandbox = resources.sandbox();
  const notADir = path.join(sandbox.dir, 'install-is-a-file');
  writeFileSync(notADir, 'not a folder');
  const env = sandbox.env({ SYSTEM1_PROVIDER: 'mock', SYSTEM1_INSTALL_DIR: notADir });
  const result = await runCli(['toggle', 'off'], env);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /system1 toggle: cannot write the pause file .*install-is-a-file\/paused \((ENOTDIR|EEXIST)\); System-1 was not switched off/,
  );
  expect(result.stderr).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
  const gateway = await resources.server({ sandbox, env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_INSTALL_DIR: notADir } });
  expect((await gateway.decide({ question: 'Still deciding?' })).body.status).toBe('decided');
});

it('reports a config path that cannot be read as a config error, and keeps answering', async () => {
  const sandbox = resources.sandbox();
  const folder = path.join(sandbox.dir, 'config-is-a-folder');
  mkdirSync(folder);
  const gateway = await resources.server({ sandbox, env: { SYSTEM1_CONFIG: folder } });
  const health = await gateway.health();
  expect(health.status).toBe('down');
  expect(health.config_errors[0].message).toBe(
    `${folder}: the config file cannot be read (${folder} is a directory, not a regular file)`,
  );
  expect((await gateway.decide({ question: 'q' })).body.error.code).toBe('config_error');
});
