/**
 * install.sh and uninstall.sh as a user runs them, in a throwaway HOME, with the real npm installing the
 * runtime dependencies from the lockfile (npm's cache serves them). The argv the .ps1 wrappers pass
 * (`--shell powershell`, `--purge`) goes through the same scripts here, since this machine has no PowerShell.
 * `claude` and `systemctl` are stand-ins on PATH that record how they were called.
 */
import { parse } from 'acorn';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { type CliResult, type Env, requireBuild, Resources, ROOT, runCommand } from './helpers/gateway';

jest.setTimeout(120_000);
const resources = Resources.perFile();
const sandbox = resources.sandbox();
const tools = path.join(sandbox.dir, 'tools');
const calls = path.join(sandbox.dir, 'calls.txt');
const app = path.join(sandbox.install, 'app');
const config = path.join(sandbox.xdg, 'system1', 'config.toml');
const loginEntry = path.join(sandbox.xdg, 'systemd', 'user', 'system1-laya.service');

function run(command: string, args: string[], env: Env, cwd = ROOT): Promise<CliResult> {
  return runCommand(command, args, { env, cwd, timeoutMs: 110_000 });
}

function fakeTool(dir: string, name: string, body: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(path.join(dir, name), 0o755);
}

/** The user's environment: recording stand-ins first on PATH, and npm's own cache, which HOME would move. */
function userEnv(extra: Env = {}): Env {
  const base = sandbox.env();
  return {
    ...base,
    PATH: `${tools}${path.delimiter}${base.PATH}`,
    npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
    ...extra,
  };
}

beforeAll(() => {
  requireBuild();
  for (const tool of ['claude', 'systemctl']) fakeTool(tools, tool, `echo "${tool} $*" >> "${calls}"`);
});

/**
 * What an old Node.js must parse to reach the version gate and say what it needs: the scripts install.sh,
 * uninstall.sh and the .ps1 wrappers run, the modules of scripts/install they load, and the one module of src
 * they share. ES2017 is what Node.js 8 parses. (The build scripts beside them run with the dev toolchain,
 * which needs Node.js 20 itself.)
 */
const OLD_NODE_ECMA_VERSION = 2017;
const LOADED_BEFORE_THE_GATE = [
  'scripts/install.js',
  'scripts/uninstall.js',
  ...readdirSync(path.join(ROOT, 'scripts', 'install'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => `scripts/install/${name}`),
  'src/config/locations.js',
];

/** Why an old Node.js could not parse `source`, or undefined when it can. */
function oldNodeSyntaxProblem(source: string): string | undefined {
  try {
    parse(source, { ecmaVersion: OLD_NODE_ECMA_VERSION, sourceType: 'script', allowHashBang: true });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('refusals, before anything is touched', () => {
  it('every script an old Node.js loads parses as ES2017, so it reaches the version gate instead of a SyntaxError', () => {
    expect(LOADED_BEFORE_THE_GATE.length).toBeGreaterThanOrEqual(7);
    const problems = LOADED_BEFORE_THE_GATE.map((file) => [
      file,
      oldNodeSyntaxProblem(readFileSync(path.join(ROOT, file), 'utf8')),
    ]).filter(([, problem]) => problem);
    expect(problems).toEqual([]);
  });

  it.each([
    'const a = b ?? c;',
    'const a = b?.c;',
    'try { f(); } catch { g(); }',
    'class A { x = 1; }',
    'const n = 1_000;',
  ])('the syntax check refuses newer syntax planted in install.js: %s', (planted) => {
    const install = readFileSync(path.join(ROOT, 'scripts', 'install.js'), 'utf8');
    expect(oldNodeSyntaxProblem(install)).toBeUndefined();
    expect(oldNodeSyntaxProblem(`${install}\n${planted}\n`)).toEqual(expect.any(String));
  });

  // The gate's own message and exit code, with the version faked (the parse check above is what shows a real
  // old Node.js gets this far).
  it('names the Node.js version it needs when the version gate sees an older one', async () => {
    const oldNode = path.join(sandbox.dir, 'old-node.js');
    writeFileSync(
      oldNode,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.19.0' } });\nObject.defineProperty(process, 'version', { value: 'v18.19.0' });\n",
    );
    for (const script of ['install.sh', 'uninstall.sh']) {
      const refused = await run('sh', [script], userEnv({ NODE_OPTIONS: `--require ${oldNode}` }));
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toContain('Node.js 20 or later is needed; this is v18.19.0');
    }
    expect(existsSync(app)).toBe(false);
  });

  it('says Node.js is missing when node is not on PATH', async () => {
    const refused = await run('/bin/sh', ['install.sh'], { ...userEnv(), PATH: path.join(sandbox.dir, 'empty') });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('install.sh: Node.js 20 or later is needed and node is not on PATH');
  });

  it('names an option it does not take', async () => {
    const refused = await run('sh', ['install.sh', '--force'], userEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('install: unknown option "--force" (it takes --no-setup, --no-modify-path)');
    expect(existsSync(app)).toBe(false);
  });
});

describe('install, upgrade, uninstall', () => {
  it('installs a copy of its own with the runtime dependencies only, creates the config and prints the registration', async () => {
    // --no-setup, as a scripted install runs it: the config stays the example (install-setup.spec.ts runs setup)
    const installed = await run('sh', ['install.sh', '--no-setup'], userEnv());
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const main = path.join(app, 'dist', 'main.js');
    expect(installed.stdout).toContain(`claude mcp add --scope user --transport stdio system1 -- node '${main}' mcp`);
    expect(installed.stdout).toContain(`node '${main}' smoke`);
    expect(installed.stdout).toContain(`Created the config ${config}`);
    expect(readFileSync(config, 'utf8')).toBe(readFileSync(path.join(ROOT, 'config.example.toml'), 'utf8'));
    expect(lstatSync(path.join(app, 'dist')).isSymbolicLink()).toBe(false);
    expect(existsSync(path.join(app, 'node_modules', '@nestjs', 'core'))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules', 'jest'))).toBe(false);
    expect(existsSync(path.join(sandbox.install, 'logs'))).toBe(true);

    expect(installed.stdout).not.toContain('Choosing an engine');

    const smoke = await run(process.execPath, [main, 'smoke', '--provider', 'mock'], userEnv(), tmpdir());
    expect(smoke.stdout).toContain('All layers pass');
    expect(smoke.code).toBe(0);
  });

  it("puts the system1 command in the install dir's bin/ when ~/.local/bin is not on PATH, and that folder on PATH in bash's profiles", async () => {
    const shim = path.join(sandbox.install, 'bin', 'system1');
    const bashrc = path.join(sandbox.home, '.bashrc');
    writeFileSync(bashrc, '# my own line\nalias ll="ls -l"\n');
    const installed = await run('sh', ['install.sh', '--no-setup'], userEnv({ SHELL: '/bin/bash' }));
    expect(installed.stdout).toContain(
      `Added the system1 command: ${shim}. Its folder is not on PATH. Added its folder to PATH in ~/.bashrc and ~/.profile (new shells find system1; --no-modify-path skips this). For the shell already open, run:`,
    );
    const line = installed.stdout
      .split('\n')
      .find((candidate) => candidate.trimStart().startsWith('export PATH='))!
      .trim();
    expect(line).toBe(`export PATH='${path.join(sandbox.install, 'bin')}':"$PATH"`);
    expect(readFileSync(bashrc, 'utf8')).toMatch(
      /^# my own line\nalias ll="ls -l"\n\ncase ":\$PATH:" in .*system1-gateway.*\n$/,
    );
    // a re-run replaces its line instead of adding another
    await run('sh', ['install.sh', '--no-setup'], userEnv({ SHELL: '/bin/bash' }));
    expect(readFileSync(bashrc, 'utf8').match(/system1-gateway/g)).toHaveLength(1);
    // only the system directories and node's on PATH, as a new terminal starts
    const fresh = {
      HOME: sandbox.home,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin`,
    };
    for (const newShell of [
      ['bash', ['-lc', 'system1 --help']],
      ['bash', ['-ic', 'system1 --help']],
      ['sh', ['-c', `${line}; system1 --help`]],
    ] as const) {
      const ran = await run(newShell[0], [...newShell[1]], fresh, tmpdir());
      expect(ran.stdout).toContain('Usage: system1');
      expect(ran.code).toBe(0);
    }
  });

  it('leaves the profiles alone with --no-modify-path, printing the line to add instead', async () => {
    const zshenv = path.join(sandbox.home, '.zshenv');
    const installed = await run('sh', ['install.sh', '--no-setup', '--no-modify-path'], userEnv({ SHELL: '/bin/zsh' }));
    expect(installed.stdout).toContain('Its folder is not on PATH. Add this line to ~/.zshrc, then open a new shell:');
    expect(existsSync(zshenv)).toBe(false);
    const zsh = await run('sh', ['install.sh', '--no-setup'], userEnv({ SHELL: '/bin/zsh' }));
    expect(zsh.stdout).toContain('Added its folder to PATH in ~/.zshenv');
  });

  it('upgrades on a re-run and keeps the user config; from PowerShell the printed separator is quoted', async () => {
    writeFileSync(config, '# mine\n[gateway]\nprovider = "mock"\n');
    // install.ps1 runs exactly this
    const upgraded = await run(
      process.execPath,
      [path.join('scripts', 'install.js'), '--shell', 'powershell'],
      userEnv(),
    );
    expect(upgraded.code).toBe(0);
    expect(upgraded.stdout).toContain(`Kept the config ${config}.`);
    expect(upgraded.stdout).toContain('Kept the engine: your config chooses provider = "mock".');
    expect(upgraded.stdout).toContain(`system1 '--' node '${path.join(app, 'dist', 'main.js')}' mcp`);
    expect(readFileSync(config, 'utf8')).toContain('# mine');
    expect(existsSync(path.join(sandbox.install, 'app.old'))).toBe(false);
  });

  it('leaves the installed copy as it was when an upgrade fails', async () => {
    const broken = path.join(sandbox.dir, 'broken-npm');
    fakeTool(broken, 'npm', 'echo "npm error simulated: registry unreachable" >&2; exit 1');
    const failed = await run('sh', ['install.sh'], userEnv({ PATH: `${broken}${path.delimiter}${userEnv().PATH}` }));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('npm error simulated');
    expect(failed.stderr).toContain('install: installing the runtime dependencies failed');
    expect(existsSync(path.join(sandbox.install, 'app.new'))).toBe(false);
    const smoke = await run(process.execPath, [path.join(app, 'dist', 'main.js'), 'smoke'], userEnv(), tmpdir());
    expect(smoke.code).toBe(0);
  });

  it('uninstalls: unregisters, removes the login entries and the copy, keeps config and logs', async () => {
    mkdirSync(path.dirname(loginEntry), { recursive: true });
    writeFileSync(loginEntry, readFileSync(path.join(ROOT, 'engines', 'laya', 'system1-laya.service')));
    const rerankerEntry = path.join(path.dirname(loginEntry), 'system1-reranker.service');
    writeFileSync(rerankerEntry, readFileSync(path.join(ROOT, 'engines', 'reranker', 'system1-reranker.service')));
    writeFileSync(calls, '');
    // uninstall.ps1 without -Purge runs exactly this
    const removed = await run(
      process.execPath,
      [path.join('scripts', 'uninstall.js'), '--shell', 'powershell'],
      userEnv(),
    );
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      'claude mcp remove --scope user system1',
      'systemctl --user disable system1-laya',
      'systemctl --user disable system1-reranker',
    ]);
    expect(removed.stdout).toContain('Unregistered system1 from Claude Code.');
    expect(removed.stdout).toContain(`Removed the system1 command ${path.join(sandbox.install, 'bin', 'system1')}.`);
    for (const profile of ['.bashrc', '.profile', '.zshenv'])
      expect(removed.stdout).toContain(`Removed the system1 PATH line from ~/${profile}.`);
    expect(readFileSync(path.join(sandbox.home, '.bashrc'), 'utf8')).toBe('# my own line\nalias ll="ls -l"\n');
    expect(existsSync(path.join(sandbox.install, 'bin'))).toBe(false);
    expect(removed.stdout).toContain('Kept the config, engines and logs (-Purge deletes them).');
    expect(existsSync(app)).toBe(false);
    expect(existsSync(loginEntry)).toBe(false);
    expect(existsSync(rerankerEntry)).toBe(false);
    expect(existsSync(config)).toBe(true);
    expect(existsSync(path.join(sandbox.install, 'logs'))).toBe(true);
  });

  it('purges the install dir and the config with --purge', async () => {
    const purged = await run('sh', ['uninstall.sh', '--purge'], userEnv());
    expect(purged).toMatchObject({ code: 0, stderr: '' });
    expect(purged.stdout).toContain(`Purged ${sandbox.install} and ${config}.`);
    expect(existsSync(sandbox.install)).toBe(false);
    expect(existsSync(config)).toBe(false);
  });
});

describe('a home whose path the shell would run', () => {
  // a path a user can have (quotes of both kinds, $, backquotes, cmd's %, shell operators), and the one
  // /system1:setup hands to the shell: the printed commands must name it
  const hostile = resources.sandbox();
  const home = path.join(hostile.dir, 'u $(touch PWNED) `touch PWNED` it\'s "quoted" $HOME %PATH% ; & | !');
  const main = path.join(home, '.system1-gateway', 'app', 'dist', 'main.js');
  const recorders = path.join(hostile.dir, 'recorders');
  const scratch = path.join(hostile.dir, 'scratch');

  /** The user's environment with the install dir left to its default, in the hostile home. */
  function hostileEnv(): Env {
    const { SYSTEM1_INSTALL_DIR: _default, ...env } = userEnv({ HOME: home, XDG_CONFIG_HOME: hostile.xdg });
    return env;
  }

  /** Runs one printed line through sh -c, with `claude` and `node` stand-ins that write their argv one a line. */
  async function runPrinted(line: string, tool: string): Promise<string[]> {
    const argv = path.join(hostile.dir, `${tool}.argv`);
    const ran = await run(
      'sh',
      ['-c', line],
      { PATH: `${recorders}${path.delimiter}${process.env.PATH ?? ''}` },
      scratch,
    );
    expect(existsSync(path.join(scratch, 'PWNED'))).toBe(false);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    return readFileSync(argv, 'utf8').split('\n').slice(0, -1);
  }

  function printedLine(stdout: string, start: string): string {
    const line = stdout.split('\n').find((candidate) => candidate.trimStart().startsWith(start));
    expect(line).toBeDefined();
    return line!.trim();
  }

  beforeAll(() => {
    mkdirSync(home, { recursive: true });
    mkdirSync(scratch);
    for (const tool of ['claude', 'node'])
      fakeTool(recorders, tool, `printf '%s\\n' "$@" > "${path.join(hostile.dir, `${tool}.argv`)}"`);
  });

  it('prints commands that pass the path as one word and run nothing in it, and so does the system1 command', async () => {
    const installed = await run('sh', ['install.sh', '--no-setup'], hostileEnv());
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(main)).toBe(true);
    const register = printedLine(installed.stdout, 'claude mcp add');
    expect(await runPrinted(register, 'claude')).toEqual([
      'mcp',
      'add',
      '--scope',
      'user',
      '--transport',
      'stdio',
      'system1',
      '--',
      'node',
      main,
      'mcp',
    ]);
    expect(await runPrinted(printedLine(installed.stdout, 'node '), 'node')).toEqual([main, 'smoke']);
    // the profile line puts the shim's folder (in the hostile home) on PATH; the shim hands node the path whole
    expect(
      await runPrinted(`${printedLine(installed.stdout, 'export PATH=')}; system1 --help "two words"`, 'node'),
    ).toEqual([main, '--help', 'two words']);
    for (const dir of [scratch, ROOT, home, hostile.dir]) expect(existsSync(path.join(dir, 'PWNED'))).toBe(false);
  });

  it("quotes the path PowerShell's way for the .ps1 installer", async () => {
    const upgraded = await run(
      process.execPath,
      [path.join('scripts', 'install.js'), '--shell', 'powershell', '--no-setup'],
      hostileEnv(),
    );
    expect(upgraded.code).toBe(0);
    const quoted = `'${main.replace(/'/g, "''")}'`;
    expect(printedLine(upgraded.stdout, 'claude mcp add')).toBe(
      `claude mcp add --scope user --transport stdio system1 '--' node ${quoted} mcp`,
    );
    expect(printedLine(upgraded.stdout, 'node ')).toBe(`node ${quoted} smoke`);
  });
});
