/**
 * uninstall.sh --purge where SYSTEM1_INSTALL_DIR and SYSTEM1_CONFIG name places that are not the gateway's: the
 * real script in a throwaway HOME, run the way a user runs it. It deletes only the gateway's own entries, and
 * refuses, before deleting anything, a dir that cannot be its install dir or a config that is not a file.
 * Nothing here needs the build: the uninstaller runs from the clone. `claude` and `systemctl` are stand-ins.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type CliResult, type Env, Resources, ROOT, runCommand, type Sandbox } from '../../e2e/helpers/gateway';

const { placeRefusal } = require('../../../scripts/install/purge') as {
  placeRefusal(dir: string, places: { home: string; cwd: string }, pathApi?: typeof path): string | undefined;
};

const resources = Resources.perTest();
/** What an install leaves behind: the copies, and what the gateway wrote while it ran. */
const OURS = ['app', 'app.old', 'logs', 'engines', 'calibration.json', 'paused', 'cooldown.json', 'cooldown.json.4242'];

interface World {
  sandbox: Sandbox;
  calls: string;
  env(extra?: Env): Env;
}

function world(): World {
  const sandbox = resources.sandbox();
  const tools = path.join(sandbox.dir, 'tools');
  const calls = path.join(sandbox.dir, 'calls.txt');
  mkdirSync(tools);
  for (const tool of ['claude', 'systemctl']) {
    writeFileSync(path.join(tools, tool), `#!/bin/sh\necho "${tool} $*" >> "${calls}"\n`);
    chmodSync(path.join(tools, tool), 0o755);
  }
  writeFileSync(calls, '');
  const env = (extra: Env = {}): Env => ({
    ...sandbox.env(extra),
    PATH: `${tools}${path.delimiter}${process.env.PATH ?? ''}`,
  });
  return { sandbox, calls, env };
}

/** Lays out a gateway install in `dir`, as install.js and the running gateway leave it. */
function fakeInstall(dir: string): void {
  for (const copy of ['app', 'app.old']) {
    mkdirSync(path.join(dir, copy, 'dist'), { recursive: true });
    writeFileSync(path.join(dir, copy, 'package.json'), JSON.stringify({ name: 'system1-gateway', version: '0.0.0' }));
  }
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  writeFileSync(path.join(dir, 'logs', 'routing.jsonl'), '{}\n');
  mkdirSync(path.join(dir, 'engines', 'laya'), { recursive: true });
  for (const file of ['calibration.json', 'paused', 'cooldown.json', 'cooldown.json.4242'])
    writeFileSync(path.join(dir, file), '{}');
}

/** Files of the user's own, beside where the gateway's would be. */
function userFiles(dir: string): string[] {
  mkdirSync(path.join(dir, 'projects', 'site'), { recursive: true });
  writeFileSync(path.join(dir, 'projects', 'site', 'index.html'), '<p>mine</p>');
  writeFileSync(path.join(dir, 'notes.txt'), 'mine');
  writeFileSync(path.join(dir, '.bashrc'), 'export MINE=1');
  return ['projects/site/index.html', 'notes.txt', '.bashrc'];
}

function purge(env: Env, cwd = ROOT): Promise<CliResult> {
  return runCommand('sh', [path.join(ROOT, 'uninstall.sh'), '--purge'], { env, cwd });
}

function expectAllThere(dir: string, names: string[]): void {
  expect(names.filter((name) => !existsSync(path.join(dir, name)))).toEqual([]);
}

/** A refusal: a reason on stderr, exit code 1, and not a file touched (nor Claude Code's registration). */
function expectRefused(result: CliResult, w: World, why: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(why);
  expect(result.stderr).toContain('nothing was deleted');
  expect(result.stdout).not.toContain('Purged');
  expect(readFileSync(w.calls, 'utf8')).toBe('');
}

describe("an install dir that cannot be the gateway's is refused, and nothing is deleted", () => {
  it.each([
    ['~', () => '~'],
    ['the home path', (home: string) => home],
    ['the home path with a trailing slash', (home: string) => `${home}/`],
  ])('SYSTEM1_INSTALL_DIR = %s', async (_name, installDir) => {
    const w = world();
    const home = w.sandbox.home;
    fakeInstall(home);
    const mine = userFiles(home);
    const refused = await purge(w.env({ SYSTEM1_INSTALL_DIR: installDir(home) }));
    expectRefused(
      refused,
      w,
      `uninstall: ${home} does not look like the gateway's install dir: it is your home directory`,
    );
    expectAllThere(home, [...mine, ...OURS]);
  });

  it('SYSTEM1_INSTALL_DIR = . (the project the user is in)', async () => {
    const w = world();
    const project = path.join(w.sandbox.dir, 'project');
    mkdirSync(path.join(project, 'logs'), { recursive: true });
    writeFileSync(path.join(project, 'logs', 'build.log'), 'mine');
    const mine = [...userFiles(project), 'logs/build.log'];
    const refused = await purge(w.env({ SYSTEM1_INSTALL_DIR: '.' }), project);
    expectRefused(refused, w, `${project} does not look like the gateway's install dir: it is the current directory`);
    expectAllThere(project, mine);
  });

  it("a dir above the home, and a dir with none of the gateway's files", async () => {
    const w = world();
    const above = await purge(w.env({ SYSTEM1_INSTALL_DIR: w.sandbox.dir }));
    expectRefused(above, w, 'it holds your home directory');
    const documents = path.join(w.sandbox.dir, 'documents');
    mkdirSync(documents);
    const mine = userFiles(documents);
    const foreign = await purge(w.env({ SYSTEM1_INSTALL_DIR: documents }));
    expectRefused(
      foreign,
      w,
      "it holds none of the gateway's files (app, app.new, app.old, engines, logs, calibration.json, paused, cooldown.json)",
    );
    expectAllThere(documents, mine);
  });

  it('a dir whose app is some other program, with or without --purge', async () => {
    const w = world();
    const project = path.join(w.sandbox.dir, 'web');
    mkdirSync(path.join(project, 'app'), { recursive: true });
    writeFileSync(path.join(project, 'app', 'package.json'), JSON.stringify({ name: 'my-web-app' }));
    mkdirSync(path.join(project, 'logs'));
    const env = w.env({ SYSTEM1_INSTALL_DIR: project });
    expectRefused(await purge(env), w, `${path.join(project, 'app')} is not a copy of the gateway`);
    const uninstalled = await runCommand('sh', [path.join(ROOT, 'uninstall.sh')], { env, cwd: ROOT });
    expectRefused(uninstalled, w, `${path.join(project, 'app')} is not a copy of the gateway`);
    expectAllThere(project, ['app/package.json', 'logs']);
  });

  it('SYSTEM1_INSTALL_DIR naming a file', async () => {
    const w = world();
    const file = path.join(w.sandbox.home, 'notes.txt');
    writeFileSync(file, 'mine');
    expectRefused(await purge(w.env({ SYSTEM1_INSTALL_DIR: file })), w, 'it is not a directory');
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('knows a filesystem root, here and on Windows, and a dir holding the current one', () => {
    const places = { home: '/home/dev', cwd: '/work/project' };
    expect(placeRefusal('/', places)).toBe('it is a filesystem root');
    expect(placeRefusal('C:\\', { home: 'C:\\Users\\dev', cwd: 'D:\\x' }, path.win32)).toBe('it is a filesystem root');
    expect(placeRefusal('c:\\users\\DEV', { home: 'C:\\Users\\dev', cwd: 'D:\\x' }, path.win32)).toBe(
      'it is your home directory',
    );
    expect(placeRefusal('/work', places)).toBe('it holds the current directory');
    expect(placeRefusal('/home/dev/.system1-gateway', places)).toBeUndefined();
    expect(placeRefusal('/home/dev/..gateway', { home: '/home/dev/..gateway/x', cwd: '/' })).toBe(
      'it holds your home directory',
    );
  });
});

describe('a config that is not a file is refused, and nothing is deleted', () => {
  it("SYSTEM1_CONFIG = '~/.config'", async () => {
    const w = world();
    const dotConfig = path.join(w.sandbox.home, '.config');
    mkdirSync(path.join(dotConfig, 'git'), { recursive: true });
    writeFileSync(path.join(dotConfig, 'git', 'config'), '[user]\n');
    fakeInstall(w.sandbox.install);
    const refused = await purge(w.env({ SYSTEM1_CONFIG: '~/.config' }));
    expectRefused(refused, w, `uninstall: refusing to delete the config ${dotConfig}: it is a directory, not a file`);
    expectAllThere(dotConfig, ['git/config']);
    expectAllThere(w.sandbox.install, OURS);
  });
});

describe('a dir the gateway shares with other files', () => {
  it("deletes the gateway's entries only and keeps the dir with the rest", async () => {
    const w = world();
    const shared = path.join(w.sandbox.dir, 'shared');
    mkdirSync(shared);
    fakeInstall(shared);
    const mine = userFiles(shared);
    const config = w.sandbox.writeConfig('[gateway]\n');
    const purged = await purge(w.env({ SYSTEM1_INSTALL_DIR: shared, SYSTEM1_CONFIG: config }));
    expect(purged).toMatchObject({ code: 0, stderr: '' });
    expect(purged.stdout).toContain(
      `Purged the gateway's files from ${shared}; kept the dir, which also holds .bashrc, notes.txt, projects.`,
    );
    expect(purged.stdout).toContain(`Purged ${config}.`);
    expect(readdirSync(shared).sort()).toEqual(['.bashrc', 'notes.txt', 'projects']);
    expectAllThere(shared, mine);
    expect(existsSync(config)).toBe(false);
  });

  it("removes a dir left empty, and leaves a config symlink's target alone", async () => {
    const w = world();
    fakeInstall(w.sandbox.install);
    const dotfiles = path.join(w.sandbox.home, 'dotfiles');
    mkdirSync(dotfiles);
    writeFileSync(path.join(dotfiles, 'config.toml'), '[gateway]\n');
    const link = path.join(w.sandbox.xdg, 'system1', 'config.toml');
    mkdirSync(path.dirname(link), { recursive: true });
    // a relative link, as dotfile managers make them
    symlinkSync(path.relative(path.dirname(link), path.join(dotfiles, 'config.toml')), link);
    const purged = await purge(w.env());
    expect(purged).toMatchObject({ code: 0, stderr: '' });
    expect(purged.stdout).toContain(`Purged ${w.sandbox.install} and ${link}.`);
    expect(existsSync(w.sandbox.install)).toBe(false);
    expect(existsSync(link)).toBe(false);
    expect(readFileSync(path.join(dotfiles, 'config.toml'), 'utf8')).toBe('[gateway]\n');
  });
});
