/**
 * The README's way to try the gateway without an engine: start a fake with `npm run fake-engine -- laya`
 * (here its compiled CLI, as that script runs it) and point the laya provider at it; smoke must pass.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { requireBuild, Resources, ROOT, runCli } from './helpers/gateway';

const FAKE_CLI = path.join(ROOT, 'dist-fakes', 'cli.js');
const resources = Resources.perTest();
let fake: ChildProcess | undefined;

beforeAll(() => {
  requireBuild();
  if (!existsSync(FAKE_CLI))
    throw new Error(`${FAKE_CLI} is missing: run npx tsc -p tsconfig.fakes.json (npm test does)`);
});
afterEach(() => fake?.kill());

/** Starts a fake engine by name and resolves with the URL it prints. */
function startFake(name: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [FAKE_CLI, name, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  fake = child;
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`the fake exited with ${code}: ${text}`)));
  });
}

it('system1 smoke passes against provider = "laya" on the fake laya', async () => {
  const endpoint = await startFake('laya');
  const sandbox = resources.sandbox();
  const config = sandbox.writeConfig(`[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${endpoint}"\n`);
  const result = await runCli(
    [
      'smoke',
      '--question',
      'Rerun the flaky pipeline or block the merge?',
      '--options',
      'rerun the pipeline',
      'block the merge',
    ],
    sandbox.env({ SYSTEM1_CONFIG: config }),
  );
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^PASS\s+health\s+ok; laya \(primary\) up/m);
  expect(result.stdout).toMatch(/^PASS\s+decision\s+decided "rerun the pipeline" .* from laya/m);
  expect(result.stdout).toContain('"provider": "laya"');
});

it('system1 smoke passes against provider = "cloudflare" on the fake Workers AI, which checks the token and the account', async () => {
  const secrets = {
    SYSTEM1_CLOUDFLARE_API_TOKEN: 'cf-smoke-SECRET-7',
    SYSTEM1_CLOUDFLARE_ACCOUNT_ID: 'feedface00000000feedface00000000',
  };
  const endpoint = await startFake('cloudflare', secrets);
  const sandbox = resources.sandbox();
  const config = sandbox.writeConfig(
    `[gateway]\nprovider = "cloudflare"\n[providers.cloudflare]\nendpoint = "${endpoint}"\n`,
  );
  const result = await runCli(
    [
      'smoke',
      '--question',
      'Rerun the flaky pipeline or block the merge?',
      '--options',
      'rerun the pipeline',
      'block the merge',
    ],
    sandbox.env({ SYSTEM1_CONFIG: config, ...secrets }),
  );
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^PASS\s+decision\s+decided "rerun the pipeline" .* from cloudflare/m);
  expect(result.stdout + result.stderr).not.toContain(secrets.SYSTEM1_CLOUDFLARE_API_TOKEN);
});
