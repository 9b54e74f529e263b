/**
 * The PATH line the installer adds to the shell's profiles (scripts/install/profile.js), in a scratch HOME: which
 * files each shell gets, that a user's own lines stay, that sourcing twice adds the folder once, and that the
 * uninstaller takes out exactly its own line. The e2e suite runs it through install.sh and `bash -lc`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const { addToProfiles, removeFromProfiles, pathLine } = require('../../../scripts/install/profile') as {
  addToProfiles(dir: string, env: Record<string, string>): string;
  removeFromProfiles(env: Record<string, string>): string[];
  pathLine(dir: string): string;
};

let home: string;
const DIR = "/opt/it's $HOME/bin";
const file = (name: string) => path.join(home, name);

beforeEach(() => (home = mkdtempSync(path.join(tmpdir(), 'system1-profile-'))));
afterEach(() => rmSync(home, { recursive: true, force: true }));

it('bash: ~/.bashrc and the login file bash reads first (~/.bash_profile when there is one), saying which', () => {
  writeFileSync(file('.bash_profile'), '. ~/.bashrc\n');
  const said = addToProfiles(DIR, { HOME: home, SHELL: '/usr/bin/bash' });
  expect(said).toContain('Added its folder to PATH in ~/.bashrc and ~/.bash_profile');
  expect(said).toContain(`For the shell already open, run:\n  export PATH='/opt/it'\\''s $HOME/bin':"$PATH"`);
  expect(readFileSync(file('.bash_profile'), 'utf8')).toBe(`. ~/.bashrc\n\n${pathLine(DIR)}\n`);
  expect(readFileSync(file('.bashrc'), 'utf8')).toBe(`${pathLine(DIR)}\n`);
  expect(existsSync(file('.profile'))).toBe(false);
});

it('zsh gets ~/.zshenv, any other shell ~/.profile', () => {
  expect(addToProfiles(DIR, { HOME: home, SHELL: '/bin/zsh' })).toContain('in ~/.zshenv (');
  expect(addToProfiles(DIR, { HOME: home, SHELL: '/bin/dash' })).toContain('in ~/.profile (');
  expect(addToProfiles(DIR, { HOME: home })).toContain('in ~/.profile (');
});

it('the line puts the folder first on PATH once, however often the profile is read, with the path taken literally', () => {
  const line = pathLine(DIR);
  const run = spawnSync('sh', ['-c', `${line}\n${line}\nprintf %s "$PATH"`], {
    env: { PATH: '/usr/bin:/bin', HOME: home },
  });
  expect(run.stdout.toString()).toBe(`${DIR}:/usr/bin:/bin`);
});

it('a second install replaces its line; uninstall removes it and keeps every line of the user', () => {
  writeFileSync(file('.profile'), '# mine\nexport EDITOR=vi\n');
  addToProfiles('/old/bin', { HOME: home });
  addToProfiles(DIR, { HOME: home });
  expect(readFileSync(file('.profile'), 'utf8')).toBe(`# mine\nexport EDITOR=vi\n\n${pathLine(DIR)}\n`);
  expect(removeFromProfiles({ HOME: home })).toEqual(['Removed the system1 PATH line from ~/.profile.']);
  expect(readFileSync(file('.profile'), 'utf8')).toBe('# mine\nexport EDITOR=vi\n');
  expect(removeFromProfiles({ HOME: home })).toEqual([]);
});
