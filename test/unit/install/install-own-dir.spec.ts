/**
 * install.js where SYSTEM1_INSTALL_DIR names a place that is not the gateway's: it swaps and deletes
 * <dir>/app, app.new and app.old, so it must refuse, naming why, before it touches anything there, by the
 * same rules as the uninstaller (scripts/install/purge.js). The real script runs in a throwaway HOME with a
 * stand-in npm that records its calls and succeeds, so nothing reaches the network.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type CliResult, type Env, Resources, ROOT, runCommand, type Sandbox } from '../../e2e/helpers/gateway';

const resources = Resources.perTest();

interface World {
  sandbox: Sandbox;
  npmCalls: string;
  env(extra?: Env): Env;
}

function world(): World {
  const sandbox = resources.sandbox();
  const tools = path.join(sandbox.dir, 'tools');
  const npmCalls = path.join(sandbox.dir, 'npm-calls.txt');
  mkdirSync(tools);
  writeFileSync(path.join(tools, 'npm'), `#!/bin/sh\necho "npm $*" >> "${npmCalls}"\n`);
  chmodSync(path.join(tools, 'npm'), 0o755);
  writeFileSync(npmCalls, '');
  const env = (extra: Env = {}): Env => ({
    ...sandbox.env(extra),
    PATH: `${tools}${path.delimiter}${process.env.PATH ?? ''}`,
  });
  return { sandbox, npmCalls, env };
}

/** --no-setup: the stand-in npm installs no runtime dependencies, so the copy it leaves cannot run a smoke check. */
function install(env: Env, cwd = ROOT): Promise<CliResult> {
  return runCommand(process.execPath, [path.join(ROOT, 'scripts', 'install.js'), '--no-setup'], { env, cwd });
}

/** Another program's folder under one of the names the installer uses, with a file of its own. */
function foreignCopy(dir: string, name: string): string {
  const copy = path.join(dir, name);
  mkdirSync(copy, { recursive: true });
  writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ name: 'someone-elses-app', version: '3.1.4' }));
  writeFileSync(path.join(copy, 'data.db'), `the only copy of ${name}`);
  return copy;
}

/** Every file under `dir` with its content, to show nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[path.relative(dir, path.join(entry.parentPath, entry.name))] = readFileSync(
        path.join(entry.parentPath, entry.name),
        'utf8',
      );
  }
  return files;
}

/** A refusal: exit code 1, the reason on stderr, npm never run, nothing installed. */
function expectRefused(result: CliResult, w: World, why: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(why);
  expect(result.stderr).toContain('nothing was changed');
  expect(result.stdout).not.toContain('Installed System-1 gateway');
  expect(readFileSync(w.npmCalls, 'utf8')).toBe('');
}

describe("an install dir that is not the gateway's is refused before anything is touched", () => {
  it.each(['app', 'app.new', 'app.old'])("a dir holding another program's %s folder: kept as it was", async (name) => {
    const w = world();
    const shared = path.join(w.sandbox.dir, 'projects');
    foreignCopy(shared, name);
    writeFileSync(path.join(shared, 'notes.txt'), 'mine');
    const before = snapshot(shared);
    const result = await install(w.env({ SYSTEM1_INSTALL_DIR: shared }));
    expectRefused(
      result,
      w,
      `refusing to install into ${shared}: ${path.join(shared, name)} is not a copy of the gateway`,
    );
    expect(snapshot(shared)).toEqual(before);
    expect(readdirSync(shared).sort()).toEqual([name, 'notes.txt'].sort());
  });

  it.each([
    ['the home directory', (w: World) => w.sandbox.home, 'it is your home directory'],
    ['the current directory', (w: World) => path.join(w.sandbox.dir, 'work'), 'it is the current directory'],
    ['a file', (w: World) => path.join(w.sandbox.dir, 'a-file'), 'it is not a directory'],
  ])('%s', async (_name, dirOf, why) => {
    const w = world();
    const work = path.join(w.sandbox.dir, 'work');
    mkdirSync(work);
    writeFileSync(path.join(w.sandbox.dir, 'a-file'), 'mine');
    const dir = dirOf(w);
    const result = await install(w.env({ SYSTEM1_INSTALL_DIR: dir }), work);
    expectRefused(result, w, `refusing to install into ${dir}: ${why}`);
    expect(readdirSync(w.sandbox.home)).toEqual([]);
    expect(readdirSync(work)).toEqual([]);
  });
});

it("upgrades a dir that holds the gateway's own copy (the check lets the real case through)", async () => {
  const w = world();
  const dir = path.join(w.sandbox.dir, 'gateway');
  mkdirSync(path.join(dir, 'app'), { recursive: true });
  writeFileSync(path.join(dir, 'app', 'package.json'), JSON.stringify({ name: 'system1-gateway', version: '0.0.1' }));
  mkdirSync(path.join(dir, 'app.new')); // an empty stage a killed install left behind
  const result = await install(w.env({ SYSTEM1_INSTALL_DIR: dir }));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`Installed System-1 gateway`);
  expect(JSON.parse(readFileSync(path.join(dir, 'app', 'package.json'), 'utf8')).version).toBe(
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
  );
  // bin/ holds the system1 command: ~/.local/bin is not on this PATH
  expect(readdirSync(dir).sort()).toEqual(['app', 'bin', 'logs']);
  expect(readFileSync(w.npmCalls, 'utf8')).toContain('npm ci --omit=dev --ignore-scripts --prefer-offline');
});

describe('an install dir Node.js could not load the gateway from is refused before anything is touched', () => {
  // Node resolves a package's "exports" through a URL of its path: a backslash there is refused as an encoded
  // separator, and a * is taken for the exports pattern's wildcard. The copy installed would never start.
  it.each([
    ['a backslash', 'back\\slash', '\\'],
    ['an asterisk', 'star*dir', '*'],
  ])('a path with %s, named by SYSTEM1_INSTALL_DIR', async (_what, name, character) => {
    const w = world();
    const dir = path.join(w.sandbox.dir, name, 'gateway');
    const result = await install(w.env({ SYSTEM1_INSTALL_DIR: dir }));
    expectRefused(
      result,
      w,
      `refusing to install into ${dir}: its path has a "${character}", and Node.js cannot load packages from such a folder (the installed gateway would not start)`,
    );
    expect(readdirSync(w.sandbox.dir)).not.toContain(name);
  });

  it('a home with one, for the default ~/.system1-gateway: the message says where to install instead', async () => {
    const w = world();
    const home = path.join(w.sandbox.dir, 'C:\\Users\\me');
    mkdirSync(home);
    const { SYSTEM1_INSTALL_DIR: _default, ...env } = w.env({ HOME: home });
    const result = await install(env);
    expectRefused(result, w, `refusing to install into ${path.join(home, '.system1-gateway')}: its path has a "\\"`);
    expect(result.stderr).toContain('Set SYSTEM1_INSTALL_DIR');
    expect(readdirSync(home)).toEqual([]);
  });
});
