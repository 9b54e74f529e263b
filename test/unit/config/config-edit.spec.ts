/**
 * The config editor keeps the user's file (comments, order, other keys) and changes only what it sets; a file
 * it cannot change safely is refused with the key named and left as it was.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { ConfigEditError, editConfigText, setConfigValues } from '../../../src/config/config-edit';

const EXAMPLE = readFileSync(path.join(__dirname, '..', '..', '..', 'config.example.toml'), 'utf8');
const CHOICE = [
  { table: 'gateway', key: 'provider', value: 'systemone' },
  { table: 'providers.systemone', key: 'endpoint', value: 'http://127.0.0.1:8790' },
];

describe('editConfigText', () => {
  it('sets keys in the shipped example under their tables and keeps every comment line of it', () => {
    const edited = editConfigText(EXAMPLE, CHOICE);
    expect(parse(edited)).toMatchObject({
      gateway: { provider: 'systemone' },
      providers: { systemone: { endpoint: 'http://127.0.0.1:8790' } },
    });
    const commentsBefore = EXAMPLE.split('\n').filter((line) => line.trim().startsWith('#'));
    const commentsAfter = edited.split('\n').filter((line) => line.trim().startsWith('#'));
    expect(commentsAfter).toEqual(commentsBefore);
    expect(edited.split('\n').length).toBe(EXAMPLE.split('\n').length + 2);
  });

  it('replaces a key that is already set, and a second edit of the same value changes nothing', () => {
    const once = editConfigText('[gateway]\nprovider = "mock" # try it\ntimeout_s = 2\n', [CHOICE[0]]);
    expect(once).toBe('[gateway]\nprovider = "systemone"\ntimeout_s = 2\n');
    expect(editConfigText(once, [CHOICE[0]])).toBe(once);
  });

  it('adds a missing table at the end, and writes an empty file as just the tables', () => {
    expect(editConfigText('[gateway]\ntimeout_s = 2\n', [CHOICE[1]])).toBe(
      '[gateway]\ntimeout_s = 2\n\n[providers.systemone]\nendpoint = "http://127.0.0.1:8790"\n',
    );
    expect(parse(editConfigText('', CHOICE))).toEqual({
      gateway: { provider: 'systemone' },
      providers: { systemone: { endpoint: 'http://127.0.0.1:8790' } },
    });
  });

  it('keeps Windows line ends, and quotes a value TOML would misread', () => {
    const edited = editConfigText('[gateway]\r\ntimeout_s = 2\r\n', [
      { table: 'gateway', key: 'provider', value: 'a "quoted" # name' },
    ]);
    expect(edited).toBe('[gateway]\r\nprovider = "a \\"quoted\\" # name"\r\ntimeout_s = 2\r\n');
    expect(parse(edited)).toEqual({ gateway: { provider: 'a "quoted" # name', timeout_s: 2 } });
  });

  it('refuses a key set in another form (dotted, inline table) and a file that is not TOML, naming the key or the reason', () => {
    expect(() => editConfigText('gateway.provider = "mock"\n', [CHOICE[0]])).toThrow(
      new ConfigEditError(
        'could not set gateway.provider by a line edit (the config sets it in another form); set it by hand: [gateway] provider = "systemone"',
      ),
    );
    expect(() => editConfigText('providers = { systemone = { model = "x" } }\n', [CHOICE[1]])).toThrow(
      /could not set providers\.systemone\.endpoint/,
    );
    expect(() => editConfigText('[gateway\nprovider = 1\n', [CHOICE[0]])).toThrow(
      /^the config is not valid TOML, so it was left as it is/,
    );
  });
});

describe('setConfigValues', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'system1-config-edit-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its folder readable by the owner only, and says whether it changed anything', () => {
    const file = path.join(dir, 'system1', 'config.toml');
    expect(setConfigValues(file, CHOICE)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(setConfigValues(file, CHOICE)).toBe(false);
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({ gateway: { provider: 'systemone' } });
  });

  it('leaves a file it refuses byte for byte as it was', () => {
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, 'gateway.provider = "mock"\n');
    expect(() => setConfigValues(file, CHOICE)).toThrow(ConfigEditError);
    expect(readFileSync(file, 'utf8')).toBe('gateway.provider = "mock"\n');
  });
});
