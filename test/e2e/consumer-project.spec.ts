/**
 * The package as a team uses it: a consumer project made in a temporary folder installs this repository as
 * a git dependency (its prepare step builds it), type-checks a TypeScript file under `strict` against the
 * published types and entry points, and runs it against a fake laya-serve.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { ROOT, runCommand } from './helpers/gateway';

jest.setTimeout(600_000);

let dir: string;
let laya: LayaFake;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'system1-consumer-'));
  laya = new LayaFake();
  await laya.start();
});
afterAll(async () => {
  await laya.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH!, HOME: dir, npm_config_cache: process.env.npm_config_cache ?? path.join(process.env.HOME ?? dir, '.npm') });

it('installs from git, type-checks under strict, and decides through a provider factory and a team engine module', async () => {
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  // The registry is asked only for what the cache lacks: the lockfile's packages are in it after npm ci here.
  const install = await runCommand('npm', ['install', `git+file://${ROOT}`, '--prefer-offline', '--no-audit', '--no-fund'], { env: env(), cwd: dir, timeoutMs: 400_000 });
  expect(install.stderr).not.toMatch(/npm error/);
  expect(install.code).toBe(0);

  copyFileSync(path.join(__dirname, '..', 'fixtures', 'consumer', 'consumer.ts'), path.join(dir, 'consumer.ts'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        outDir: 'out',
        // The consumer's own Node types (a project would have @types/node): borrowed from this repository.
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
  const tsc = await runCommand(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { env: env(), cwd: dir, timeoutMs: 120_000 });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.code).toBe(0);

  const run = await runCommand(process.execPath, [path.join(dir, 'out', 'consumer.js')], {
    env: { ...env(), LAYA_URL: laya.url.origin, SYSTEM1_INSTALL_DIR: path.join(dir, 'install') },
    cwd: dir,
  });
  expect(run.stderr).toBe('');
  const { viaFactory, viaTeam } = JSON.parse(run.stdout);
  expect(viaFactory.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'billing' } });
  expect(viaFactory.meta.executed).toEqual({ provider: 'laya-direct', model: 'typed-decisions' });
  expect(laya.requestsTo('/v1/systemone')).toHaveLength(1);
  expect(viaTeam.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'billing', confidence: 0.75 } });
  expect(viaTeam.meta).toMatchObject({ executed: { provider: 'team', model: 'team-1' }, approximate: true });
});
