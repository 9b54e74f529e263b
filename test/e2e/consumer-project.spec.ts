/**
 * The package as a team uses it: a consumer project made in a temporary folder installs this working tree,
 * packed by `npm pack` (so what a developer changed and built is what is tested, not the last commit), with
 * npm offline: the dependencies are the versions package-lock.json pins, from the npm cache `npm ci` filled.
 * It type-checks a TypeScript file under `strict` against the published types and entry points (the
 * contracts entry's types included, and the calibration kit's), and runs it against a fake laya-serve and a fake keyword service, the
 * HTTP engine a team writes with the provider kit.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { requireBuild, ROOT, runCommand } from './helpers/gateway';

jest.setTimeout(600_000);

let dir: string;
let laya: LayaFake;
let keywords: KeywordService;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'system1-consumer-'));
  laya = new LayaFake();
  await laya.start();
  keywords = await keywordService();
});
afterAll(async () => {
  await laya.stop();
  await new Promise((resolve) => keywords.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

interface KeywordService {
  server: Server;
  url: URL;
  /** Every request that reached it, with its JSON body. */
  requests: { method: string; path: string; body: unknown }[];
}

/** The team's keyword service on 127.0.0.1 (a stand-in that picks the first option), recording what reaches it. */
async function keywordService(): Promise<KeywordService> {
  const requests: KeywordService['requests'] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http does not await it; a throw fails only this fake request
  const server = createServer(async (req: IncomingMessage, res) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const body = text === '' ? undefined : (JSON.parse(text) as { question: string; options: string[] });
    requests.push({ method: req.method ?? '', path: req.url ?? '', body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        body ? { decision: body.options[0], confidence: 0.8, rationale: 'the first option' } : { status: 'ok' },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), requests };
}

interface Packed {
  name: string;
  version: string;
  filename: string;
  integrity: string;
}
interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/**
 * The consumer's package-lock.json: the packed tarball, and this repository's locked runtime packages at the
 * same places. An offline install resolves nothing then (npm ci cached tarballs, not the registry's indexes).
 */
function consumerLock(packed: Packed, spec: string) {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const { '': root, ...locked } = lock.packages;
  const runtime = Object.entries(locked)
    .filter(([, entry]) => !entry.dev)
    .map(([where, { devOptional: _devOnlyHere, ...entry }]) => [where, entry]);
  return {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies: { [packed.name]: spec } },
      [`node_modules/${packed.name}`]: {
        version: packed.version,
        resolved: spec,
        integrity: packed.integrity,
        dependencies: root.dependencies,
        bin: root.bin,
        engines: root.engines,
      },
      ...Object.fromEntries(runtime),
    },
  };
}

const env = () => ({
  PATH: process.env.PATH!,
  HOME: dir,
  npm_config_cache: process.env.npm_config_cache ?? path.join(process.env.HOME ?? dir, '.npm'),
});

it('installs the packed working tree offline, type-checks under strict, and decides through a provider factory and a team engine module', async () => {
  requireBuild();
  const pack = await runCommand('npm', ['pack', '--pack-destination', dir, '--json'], {
    env: env(),
    cwd: ROOT,
    timeoutMs: 120_000,
  });
  expect(pack.code).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as Packed[];
  const spec = `file:${packed.filename}`;
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, dependencies: { [packed.name]: spec } }),
  );
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(consumerLock(packed, spec)));
  const install = await runCommand('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
    env: env(),
    cwd: dir,
    timeoutMs: 400_000,
  });
  expect(install.stderr).not.toMatch(/npm error/);
  expect(install.code).toBe(0);
  // The working tree's build, not a copy of the last commit's.
  expect(readFileSync(path.join(dir, 'node_modules', packed.name, 'dist', 'main.js'), 'utf8')).toBe(
    readFileSync(path.join(ROOT, 'dist', 'main.js'), 'utf8'),
  );

  copyFileSync(path.join(__dirname, '..', 'fixtures', 'consumer', 'consumer.ts'), path.join(dir, 'consumer.ts'));
  copyFileSync(
    path.join(__dirname, '..', 'fixtures', 'consumer', 'keywords-engine.ts'),
    path.join(dir, 'keywords-engine.ts'),
  );
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
  const tsc = await runCommand(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
    { env: env(), cwd: dir, timeoutMs: 120_000 },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.code).toBe(0);

  const run = await runCommand(process.execPath, [path.join(dir, 'out', 'consumer.js')], {
    env: {
      ...env(),
      LAYA_URL: laya.url.origin,
      KEYWORDS_URL: keywords.url.origin,
      SYSTEM1_INSTALL_DIR: path.join(dir, 'install'),
    },
    cwd: dir,
  });
  expect(run.stderr).toBe('');
  const { viaFactory, contracts, viaTeam, viaKit, refused, refusedByClient, threshold } = JSON.parse(run.stdout);
  // The calibration kit: 30 right answers at 0.95 reject every threshold down to 0.51; at 0.50 the 10 wrong stop it.
  expect(threshold).toMatchObject({ threshold: 0.51, n: 30, errors: 0, coverage: 0.75, target_accuracy: 0.9 });
  // Registered by the id it was created with.
  expect(viaFactory.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'billing' } });
  expect(viaFactory.meta.executed).toEqual({ provider: 'laya-direct', model: 'typed-decisions' });
  expect(laya.requestsTo('/v1/systemone')).toHaveLength(1);
  // The contracts' classes are the library's, both ways: its System1ProviderError read by the pipeline, and
  // the library's System1InputError caught as the contracts' class.
  expect(contracts.resting).toEqual({
    status: 'error',
    error: { code: 'unavailable', message: 'down for maintenance (1 asked)' },
  });
  expect(contracts.unknownOption).toMatchObject({
    input: true,
    field: 'ids',
    message: expect.stringMatching(/^ids is not an option of createTypesafeProvider: it takes id, /),
  });
  expect(contracts.wrongName).toMatchObject({ input: true, message: expect.stringContaining('"laya-2"') });
  expect(contracts.badCall).toMatchObject({ input: true, field: expect.stringContaining('questions') });

  // A plain CommonJS consumer: require() of the contracts entry, as the compiled TypeScript above does too.
  const required = await runCommand(
    process.execPath,
    ['-e', "const c = require('system1-gateway/contracts'); console.log(Object.keys(c).sort().join(' '))"],
    { env: env(), cwd: dir },
  );
  expect(required).toMatchObject({ code: 0, stderr: '' });
  expect(required.stdout.trim().split(' ')).toEqual(
    expect.arrayContaining(['System1InputError', 'System1ProviderError', 'ProviderError', 'DecisionErrorCode']),
  );
  expect(viaTeam.answers.topic).toMatchObject({
    status: 'ok',
    answer: { type: 'choice', value: 'billing', confidence: 0.75 },
  });
  expect(viaTeam.meta).toMatchObject({ executed: { provider: 'team', model: 'team-1' }, approximate: true });

  // The kit's engine: asked at the loopback fake, and refused at 0.0.0.0 (which would reach the fake) unsent.
  expect(viaKit.answers.topic).toMatchObject({
    status: 'ok',
    answer: { type: 'choice', value: 'billing', confidence: 0.8 },
  });
  expect(viaKit.meta).toMatchObject({ executed: { provider: 'keywords', model: 'kw-1' }, approximate: true });
  expect(refused.answers.topic).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
  expect(refused.answers.topic.error.message).toMatch(
    /endpoint.*0\.0\.0\.0.*not this machine|not this machine.*0\.0\.0\.0/,
  );
  expect(refusedByClient).toBe('refused to call 0.0.0.0: not this machine and allow_remote is off');
  const options = ['billing: Billing refund', 'technical: Technical support'];
  expect(keywords.requests).toEqual([
    { method: 'POST', path: '/v1/pick', body: { model: 'kw-1', question: expect.any(String), options } },
  ]);
});

it('docs/writing-a-provider.md shows the kit engine the consumer project compiles, as it is', () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'writing-a-provider.md'), 'utf8');
  expect(doc).toContain(readFileSync(path.join(__dirname, '..', 'fixtures', 'consumer', 'keywords-engine.ts'), 'utf8'));
});
