/** Where uninstall looks for the engine's start-at-login entry on each platform, and how it unregisters it. */
import * as path from 'node:path';

const { loginEntryFor, ENGINES } = require('../../../scripts/install/login-entries') as {
  loginEntryFor(
    platform: NodeJS.Platform,
    env: Record<string, string>,
    engine?: string,
  ): { file: string; unregister?: [string, string[]] };
  ENGINES: string[];
};

it('is the Startup folder on Windows, with nothing to unregister', () => {
  const appData = path.join('C:', 'Users', 'dev', 'AppData', 'Roaming');
  expect(loginEntryFor('win32', { USERPROFILE: path.join('C:', 'Users', 'dev'), APPDATA: appData })).toEqual({
    file: path.join(appData, 'Microsoft', 'Windows', 'Start Menu', 'Programs', 'Startup', 'system1-laya.cmd'),
  });
});

it('is a LaunchAgent on macOS, unloaded first', () => {
  const file = path.join('/Users/dev', 'Library', 'LaunchAgents', 'com.system1.laya.plist');
  expect(loginEntryFor('darwin', { HOME: '/Users/dev' })).toEqual({
    file,
    unregister: ['launchctl', ['unload', file]],
  });
});

it('is a systemd user unit on Linux, under XDG_CONFIG_HOME when set, disabled first', () => {
  const unregister = ['systemctl', ['--user', 'disable', 'system1-laya']];
  expect(loginEntryFor('linux', { HOME: '/home/dev' })).toEqual({
    file: '/home/dev/.config/systemd/user/system1-laya.service',
    unregister,
  });
  expect(loginEntryFor('linux', { HOME: '/home/dev', XDG_CONFIG_HOME: '/xdg' })).toEqual({
    file: '/xdg/systemd/user/system1-laya.service',
    unregister,
  });
});

it('covers every engine folder that ships login templates', () => {
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  const engines = path.resolve(__dirname, '..', '..', '..', 'engines');
  const withTemplates = fs
    .readdirSync(engines)
    .filter((name) => fs.existsSync(path.join(engines, name, `system1-${name}.service`)));
  expect(withTemplates.sort()).toEqual([...ENGINES].sort());
});

it.each(['laya', 'reranker'])('names the files the templates in engines/%s say to copy', (engine) => {
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  const templates = path.resolve(__dirname, '..', '..', '..', 'engines', engine);
  expect(fs.readFileSync(path.join(templates, `system1-${engine}.cmd`), 'utf8')).toContain(
    `Startup\\system1-${engine}.cmd`,
  );
  expect(fs.readFileSync(path.join(templates, `system1-${engine}.service`), 'utf8')).toContain(
    '~/.config/systemd/user/',
  );
  expect(fs.readFileSync(path.join(templates, `com.system1.${engine}.plist`), 'utf8')).toContain(
    '~/Library/LaunchAgents/',
  );
  expect(loginEntryFor('linux', { HOME: '/home/dev' }, engine).file).toBe(
    `/home/dev/.config/systemd/user/system1-${engine}.service`,
  );
});
