/**
 * `system1-gateway/contracts` as a consumer's `require` finds it, through package.json "exports" (Node resolves
 * a package's own name inside it, so the built dist/ is what answers): the error classes it exports are the
 * ones the library throws, so `instanceof` holds across the two entry points. The full install into a
 * consumer project is consumer-project.spec.ts.
 */
import { requireBuild, ROOT, runCommand } from './helpers/gateway';

/** Runs `script` as a CommonJS consumer in the package's folder; it prints one JSON line. */
async function consume(script: string): Promise<Record<string, unknown>> {
  const run = await runCommand(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH!, HOME: ROOT, SYSTEM1_CONFIG: '/nonexistent/system1.toml' },
    cwd: ROOT,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

beforeAll(() => requireBuild());

it('require("system1-gateway/contracts") gives the error classes, and loads no Nest and no engine', async () => {
  const seen = await consume(`
    const contracts = require('system1-gateway/contracts');
    const loaded = Object.keys(require.cache);
    console.log(JSON.stringify({
      exports: Object.keys(contracts).sort(),
      nest: loaded.some((file) => file.includes('@nestjs')),
      engines: loaded.some((file) => file.includes('providers')),
    }));
  `);
  expect(seen).toEqual({
    exports: [
      'DecisionErrorCode',
      'EngineStatusError',
      'EngineTransportError',
      'MalformedResponseError',
      'ProviderError',
      'ProviderSettingError',
      'System1InputError',
      'System1ProviderError',
    ],
    nest: false,
    engines: false,
  });
});

it('an error the library throws is an instance of the class from system1-gateway/contracts', async () => {
  const seen = await consume(`
    const { System1InputError, ProviderError, System1ProviderError } = require('system1-gateway/contracts');
    const { createSystem1 } = require('system1-gateway');
    const { createTypesafeProvider } = require('system1-gateway/providers/typesafe');
    const caught = (work) => { try { work(); } catch (error) { return error; } };
    (async () => {
      const badOption = caught(() => createTypesafeProvider({ ids: 'jevX' }));
      const badService = await createSystem1({ timeoutMs: -1, logger: false }).catch((error) => error);
      console.log(JSON.stringify({
        badOption: { input: badOption instanceof System1InputError, field: badOption.field },
        badService: { input: badService instanceof System1InputError, field: badService.field },
        providerError: new System1ProviderError('unavailable', 'down') instanceof ProviderError,
      }));
    })();
  `);
  expect(seen).toEqual({
    badOption: { input: true, field: 'ids' },
    badService: { input: true, field: 'timeoutMs' },
    providerError: true,
  });
});
