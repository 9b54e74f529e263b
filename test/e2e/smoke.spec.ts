/** `system1 smoke` starts the server as a client does and passes only when every layer passes. */
import { type Json, requireBuild, Resources, runCli } from './helpers/gateway';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';

beforeAll(requireBuild);
const resources = Resources.perTest();

const SMOKE = ['smoke', '--provider', 'mock', '--question', 'Q', '--options', 'a', 'b'];

it('passes every layer with the mock and exits 0', async () => {
  const result = await runCli(SMOKE, resources.sandbox().env());
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  for (const layer of ['start', 'handshake', 'tools', 'health', 'decision']) {
    expect(result.stdout).toMatch(new RegExp(`^PASS\\s+${layer}\\b`, 'm'));
  }
  expect(result.stdout).not.toMatch(/^FAIL/m);
  expect(result.stdout).toContain('"decision": "a"');
});

it('--json prints one JSON document with ok true', async () => {
  const result = await runCli([...SMOKE, '--json'], resources.sandbox().env());
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json; // the whole of stdout is one document
  expect(report.ok).toBe(true);
  expect(report.layers.map((l: Json) => [l.layer, l.ok])).toEqual([
    ['start', true],
    ['handshake', true],
    ['tools', true],
    ['health', true],
    ['decision', true],
  ]);
  expect(report.decision).toMatchObject({ status: 'decided', decision: 'a', provider: 'mock' });
  // The latency it saw, as a client sees it: a whole number of milliseconds for each call, never its size.
  expect(report.latency_ms).toEqual({ health: expect.any(Number), decision: expect.any(Number) });
  expect(Number.isInteger(report.latency_ms.decision)).toBe(true);
  expect(report.layers.at(-1).detail).toMatch(new RegExp(`, in ${report.latency_ms.decision} ms$`));
});

it('fails with a broken config and says the gateway is down and why', async () => {
  const sandbox = resources.sandbox();
  const config = sandbox.writeConfig('[gateway]\ntimeout_s = 0\n');
  const result = await runCli(SMOKE, sandbox.env({ SYSTEM1_CONFIG: config }));
  expect(result.code).not.toBe(0);
  const output = result.stdout + result.stderr;
  expect(output).toMatch(/^FAIL\s+health/m);
  expect(output).toContain('down');
  expect(output).toContain('timeout_s');
});

it('--json with a broken config still prints one JSON document, with ok false', async () => {
  const sandbox = resources.sandbox();
  const config = sandbox.writeConfig('[gateway]\ntimeout_s = 0\n');
  const result = await runCli([...SMOKE, '--json'], sandbox.env({ SYSTEM1_CONFIG: config }));
  expect(result.code).not.toBe(0);
  const report = JSON.parse(result.stdout) as Json;
  expect(report.ok).toBe(false);
  expect(report.health).toMatchObject({ status: 'down' });
});

it('fails when the mock is set to fail', async () => {
  const result = await runCli(SMOKE, resources.sandbox().env({ SYSTEM1_MOCK_FAIL: 'engine down' }));
  expect(result.code).not.toBe(0);
  expect(result.stdout + result.stderr).toMatch(/^FAIL/m);
  expect(result.stdout + result.stderr).toContain('engine down');
});

describe('--installed checks the copy clients are registered with', () => {
  it('says NOT INSTALLED, naming where it looked, when there is no installed copy', async () => {
    const sandbox = resources.sandbox();
    const result = await runCli(['smoke', '--installed', '--json'], sandbox.env());
    expect(result.code).not.toBe(0);
    const report = JSON.parse(result.stdout) as Json;
    expect(report.ok).toBe(false);
    expect(report.layers).toEqual([{ layer: 'start', ok: false, detail: expect.stringContaining('NOT INSTALLED') }]);
    expect(report.layers[0].detail).toContain(path.join(sandbox.install, 'app', 'dist', 'main.js'));
  });

  it('starts the installed copy, not this build, and passes every layer', async () => {
    const sandbox = resources.sandbox();
    // An installed copy that is this build: the command smoke reports must be the install dir's path.
    symlinkSync(path.resolve(__dirname, '..', '..'), path.join(sandbox.install, 'app'), 'dir');
    const result = await runCli(['smoke', '--installed', '--provider', 'mock', '--json'], sandbox.env());
    const report = JSON.parse(result.stdout) as Json;
    expect(report.command).toEqual([expect.any(String), path.join(sandbox.install, 'app', 'dist', 'main.js'), 'mcp']);
    expect(report.layers.map((l: Json) => [l.layer, l.ok])).toEqual([
      ['start', true],
      ['handshake', true],
      ['tools', true],
      ['health', true],
    ]);
    expect(result.code).toBe(0);
  });
});
