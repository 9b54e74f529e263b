/**
 * engines/laya/start.sh as a user or a login entry runs it, from a copy of the engines folder, with a stand-in
 * laya-serve in the venv that reports the settings it was started with. (start.ps1 passes -Model and -Port
 * to the same start.js as --model and --port.)
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type CliResult, ROOT, runCommand } from './helpers/gateway';

const STAND_IN = `#!/usr/bin/env node
const seen = { host: process.env.LAYA_HOST, port: process.env.LAYA_PORT, models: process.env.LAYA_MODELS, preload: process.env.LAYA_PRELOAD, pid: process.pid };
console.log('stand-in laya-serve started ' + JSON.stringify(seen));
require('node:http').createServer((request, response) => response.end(JSON.stringify(seen))).listen(Number(seen.port), seen.host);
`;

const started: number[] = [];
let root: string;

/** A copy of engines/laya as /system1:choose-model installs it, with or without laya-serve in its venv. */
function enginesFolder(withServe: boolean): string {
  const folder = path.join(mkdtempSync(path.join(root, 'laya-')), 'engines', 'laya');
  mkdirSync(folder, { recursive: true });
  for (const file of ['start.sh', 'start.js'])
    copyFileSync(path.join(ROOT, 'engines', 'laya', file), path.join(folder, file));
  if (withServe) {
    const serve = path.join(folder, 'venv', 'bin', 'laya-serve');
    mkdirSync(path.dirname(serve), { recursive: true });
    writeFileSync(serve, STAND_IN);
    chmodSync(serve, 0o755);
  }
  return folder;
}

function start(folder: string, args: string[] = [], env: Record<string, string> = {}): Promise<CliResult> {
  return runCommand('sh', [path.join(folder, 'start.sh'), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: root, ...env },
    timeoutMs: 10_000,
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What the engine that answers on the port was started with, once it listens. */
async function engineSettings(port: number): Promise<Record<string, string | number>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const seen = (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as Record<string, string | number>;
      started.push(Number(seen.pid));
      return seen;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`nothing answered on 127.0.0.1:${port}`);
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'system1-laya-'));
});

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
});

it('starts laya-serve on 127.0.0.1 with the pinned checkpoint preloaded, logging next to itself, even when told 0.0.0.0', async () => {
  const folder = enginesFolder(true);
  const port = await freePort();
  const launched = await start(folder, ['--port', String(port)], { LAYA_HOST: '0.0.0.0' });
  expect(launched).toMatchObject({ code: 0, stderr: '' });
  expect(launched.stdout).toBe(
    `laya-serve starting on http://127.0.0.1:${port} (checkpoints: typed-decisions); log: ${path.join(folder, 'laya-serve.log')}\n`,
  );
  expect(await engineSettings(port)).toMatchObject({
    host: '127.0.0.1',
    port: String(port),
    models: 'typed-decisions',
    preload: '1',
  });
  expect(readFileSync(path.join(folder, 'laya-serve.log'), 'utf8')).toContain('stand-in laya-serve started');

  const again = await start(folder, ['--port', String(port)]);
  expect(again).toMatchObject({
    code: 0,
    stdout: `Port ${port} on 127.0.0.1 is already in use: leaving the running engine alone.\n`,
  });
  expect(readFileSync(path.join(folder, 'laya-serve.log'), 'utf8').match(/started/g)).toHaveLength(1);
});

it('takes the port and checkpoints from LAYA_PORT and LAYA_MODELS', async () => {
  const port = await freePort();
  const launched = await start(enginesFolder(true), [], { LAYA_PORT: String(port), LAYA_MODELS: 'multilingual' });
  expect(launched.code).toBe(0);
  expect(await engineSettings(port)).toMatchObject({ port: String(port), models: 'multilingual' });
});

it('says how to install laya-serve when there is none', async () => {
  const folder = enginesFolder(false);
  const missing = await start(folder, ['--port', String(await freePort())]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe(
    `start: laya-serve is not installed: /system1:choose-model installs it into ${path.join(folder, 'venv')} (pip install laya)\n`,
  );
});

it('names a bad port or an unknown option', async () => {
  const folder = enginesFolder(true);
  const badPort = await start(folder, ['--port', '70000']);
  expect(badPort).toMatchObject({ code: 1, stderr: 'start: the port must be a number from 1 to 65535, not "70000"\n' });
  const unknown = await start(folder, ['--host', '0.0.0.0']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("Unknown option '--host'");
});
