/**
 * The `system1` command the installer writes (scripts/install/shim.js), on a scratch file system: where it
 * goes, what it runs, the PATH line it prints when its folder is not on PATH, and that another program's
 * `system1` is never replaced or removed. The e2e suite runs the sh shim for real; this also covers Windows'.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

type Options = { env: Record<string, string>; dir: string; shell: 'sh' | 'powershell'; platform?: NodeJS.Platform };

const { installShim, removeShims, shimText, MARK } = require('../../../scripts/install/shim') as {
  installShim(main: string, options: Options): string;
  removeShims(options: Omit<Options, 'shell'>): string[];
  shimText(platform: NodeJS.Platform, main: string): string;
  MARK: string;
};

let scratch: string;
let home: string;
let dir: string;
const localBin = () => path.join(home, '.local', 'bin');
const MAIN = "/opt/it's here/app/dist/main.js";

beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'system1-shim-'));
  home = path.join(scratch, 'home');
  dir = path.join(scratch, 'install');
  mkdirSync(home);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

it('goes to ~/.local/bin when that is on PATH, and says so', () => {
  const said = installShim(MAIN, {
    env: { HOME: home, PATH: `/usr/bin${path.delimiter}${localBin()}` },
    dir,
    shell: 'sh',
    platform: 'linux',
  });
  expect(said).toBe(`Added the system1 command: ${path.join(localBin(), 'system1')} (its folder is on PATH).`);
  expect(readFileSync(path.join(localBin(), 'system1'), 'utf8')).toBe(
    `#!/bin/sh\n# ${MARK}: runs the installed System-1 gateway; its uninstaller removes this file\nexec node '/opt/it'\\''s here/app/dist/main.js' "$@"\n`,
  );
  expect(existsSync(path.join(dir, 'bin'))).toBe(false);
});

it("otherwise goes to the install dir's bin/, with the line for the user's shell profile or PowerShell", () => {
  const env = { HOME: home, PATH: '/usr/bin', SHELL: '/usr/bin/zsh' };
  const bin = path.join(dir, 'bin');
  expect(installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' })).toBe(
    `Added the system1 command: ${path.join(bin, 'system1')}. Its folder is not on PATH. Add this line to ~/.zshrc, then open a new shell:\n  export PATH='${bin}':"$PATH"`,
  );
  expect(installShim(MAIN, { env: { ...env, SHELL: '' }, dir, shell: 'sh', platform: 'linux' })).toContain(
    'Add this line to ~/.profile',
  );
  expect(installShim(MAIN, { env, dir, shell: 'powershell', platform: 'win32' })).toContain(
    `Run this once in PowerShell, then open a new terminal:\n  [Environment]::SetEnvironmentVariable('Path', '${bin};' + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')`,
  );
});

it('on Windows is a .cmd that passes every argument and doubles the % that cmd would expand', () => {
  expect(shimText('win32', 'C:\\Users\\a%b\\app\\dist\\main.js')).toBe(
    `@echo off\r\nrem ${MARK}: runs the installed System-1 gateway; its uninstaller removes this file\r\nnode "C:\\Users\\a%%b\\app\\dist\\main.js" %*\r\n`,
  );
  installShim(MAIN, { env: { HOME: home, PATH: localBin() }, dir, shell: 'powershell', platform: 'win32' });
  expect(existsSync(path.join(localBin(), 'system1.cmd'))).toBe(true);
});

it("never replaces or removes another program's system1, and says so", () => {
  mkdirSync(localBin(), { recursive: true });
  const foreign = path.join(localBin(), 'system1');
  writeFileSync(foreign, '#!/bin/sh\necho "the other system1"\n');
  const env = { HOME: home, PATH: localBin() };
  expect(installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' })).toContain(
    `Left ${foreign} as it is: it is not the gateway's (it has no "${MARK}" line)`,
  );
  expect(removeShims({ env, dir, platform: 'linux' })).toEqual([`Left ${foreign} as it is: it is not the gateway's.`]);
  expect(readFileSync(foreign, 'utf8')).toBe('#!/bin/sh\necho "the other system1"\n');
});

it('warns when another system1 earlier on PATH would run instead', () => {
  const earlier = path.join(scratch, 'earlier');
  mkdirSync(earlier);
  writeFileSync(path.join(earlier, 'system1'), '#!/bin/sh\n');
  chmodSync(path.join(earlier, 'system1'), 0o755);
  const said = installShim(MAIN, {
    env: { HOME: home, PATH: [earlier, localBin()].join(path.delimiter) },
    dir,
    shell: 'sh',
    platform: 'linux',
  });
  expect(said).toContain(`but a new shell runs ${path.join(earlier, 'system1')} instead`);
});

it('keeps one copy: a reinstall under another PATH moves it; uninstall removes ours and the bin/ it made', () => {
  installShim(MAIN, { env: { HOME: home, PATH: '/usr/bin' }, dir, shell: 'sh', platform: 'linux' });
  expect(existsSync(path.join(dir, 'bin', 'system1'))).toBe(true);
  const env = { HOME: home, PATH: localBin() };
  installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' });
  expect(existsSync(path.join(dir, 'bin'))).toBe(false);
  expect(removeShims({ env, dir, platform: 'linux' })).toEqual([
    `Removed the system1 command ${path.join(localBin(), 'system1')}.`,
  ]);
  expect(existsSync(path.join(localBin(), 'system1'))).toBe(false);
  expect(existsSync(localBin())).toBe(true); // ~/.local/bin is the user's
});

/** Another program's `system1`, executable, in a folder of its own under the scratch dir. */
function otherProgram(folder = 'other-bin'): string {
  const dir = path.join(scratch, folder);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'system1');
  writeFileSync(file, '#!/bin/sh\necho "the other system1"\n');
  chmodSync(file, 0o755);
  return file;
}

describe("another program's system1 later on PATH", () => {
  it('is not hidden: no shim goes in a folder before it, and the message names it and how to run the gateway', () => {
    const other = otherProgram();
    const env = { HOME: home, PATH: [localBin(), path.dirname(other), '/usr/bin'].join(path.delimiter) };
    const said = installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' });
    expect(said).toBe(
      `Left no system1 command: ${other}, another program's system1, is on PATH, and one in ${localBin()} would hide it. Run the gateway as node '/opt/it'\\''s here/app/dist/main.js', or remove ${other} and run the installer again.`,
    );
    expect(existsSync(path.join(localBin(), 'system1'))).toBe(false);
    expect(existsSync(path.join(dir, 'bin'))).toBe(false);
  });

  it('is not hidden by the PATH line either, when the shim would go in the install dir', () => {
    const other = otherProgram();
    const env = { HOME: home, PATH: [path.dirname(other), '/usr/bin'].join(path.delimiter) };
    const said = installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' });
    expect(said).toContain(`Left no system1 command: ${other}, another program's system1, is on PATH`);
    expect(said).not.toContain('export PATH=');
    expect(existsSync(path.join(dir, 'bin'))).toBe(false);
  });

  it('an upgrade keeps the shim a new shell already runs, and names the program it hides', () => {
    const env = { HOME: home, PATH: localBin() };
    installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' });
    const other = otherProgram(); // installed after the gateway
    const later = { ...env, PATH: [localBin(), path.dirname(other)].join(path.delimiter) };
    const shim = path.join(localBin(), 'system1');
    expect(installShim(MAIN, { env: later, dir, shell: 'sh', platform: 'linux' })).toBe(
      `Added the system1 command: ${shim} (its folder is on PATH). It hides ${other}, another program's system1, later on PATH: remove ${shim} (the uninstaller does) to run that one again.`,
    );
    expect(readFileSync(shim, 'utf8')).toContain(MARK);
  });
});

describe('what is already at the shim’s place, if not a file of ours', () => {
  it('a link named system1 stays as it is, and nothing is written through a dangling one', () => {
    mkdirSync(localBin(), { recursive: true });
    const shim = path.join(localBin(), 'system1');
    const aimedAt = path.join(scratch, 'elsewhere', 'system1');
    mkdirSync(path.dirname(aimedAt));
    symlinkSync(aimedAt, shim);
    const env = { HOME: home, PATH: localBin() };
    expect(installShim(MAIN, { env, dir, shell: 'sh', platform: 'linux' })).toContain(
      `Left ${shim} as it is: it is not the gateway's`,
    );
    expect(existsSync(aimedAt)).toBe(false);
    expect(lstatSync(shim).isSymbolicLink()).toBe(true);
    expect(removeShims({ env, dir, platform: 'linux' })).toEqual([`Left ${shim} as it is: it is not the gateway's.`]);
    expect(lstatSync(shim).isSymbolicLink()).toBe(true);
  });

  it('a FIFO named system1 is left as it is, without waiting to read it', () => {
    mkdirSync(localBin(), { recursive: true });
    const shim = path.join(localBin(), 'system1');
    spawnSync('mkfifo', [shim]);
    // In a child with a timer: a read of the FIFO would block this process for good.
    const script = `const { installShim } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'scripts', 'install', 'shim.js'))});
      process.stdout.write(installShim(${JSON.stringify(MAIN)}, { env: { HOME: ${JSON.stringify(home)}, PATH: ${JSON.stringify(localBin())} }, dir: ${JSON.stringify(dir)}, shell: 'sh', platform: 'linux' }));`;
    const ran = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain(`Left ${shim} as it is: it is not the gateway's`);
    expect(lstatSync(shim).isFIFO()).toBe(true);
  });
});
