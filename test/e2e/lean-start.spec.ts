/**
 * The commands clients start often (`mcp`, the hooks) run from the build's bundles with a V8 code cache. A
 * cache that V8 rejects (made under other flags, or for another build) still works, only slower, so the
 * paths say at DEBUG how they were loaded and this suite holds them to "accepted".
 */
import { execFile } from 'node:child_process';
import { MAIN, requireBuild, Resources } from './helpers/gateway';

const resources = Resources.perTest();
beforeAll(() => requireBuild());

it('serves mcp from the bundle with its code cache accepted', async () => {
  const session = await resources.server({ env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_LOG_LEVEL: 'DEBUG' } });
  expect((await session.decide({ question: 'Rerun or block?', options: ['rerun', 'block'] })).body.status).toBe(
    'decided',
  );
  expect(session.stderr()).toContain(`code cache accepted (node ${process.version})`);
});

it.each(['route-hook', 'spawn-hook'])('runs %s from the bundle with its code cache accepted', async (command) => {
  const sandbox = resources.sandbox();
  const stderr = await new Promise<string>((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, command],
      { env: sandbox.env({ SYSTEM1_LOG_LEVEL: 'DEBUG' }), timeout: 10_000 },
      (_error, _stdout, err) => resolve(String(err)),
    );
    child.stdin!.end(JSON.stringify({ session_id: 's-1', prompt: 'hi' }));
  });
  expect(stderr).toContain(`code cache accepted (node ${process.version})`);
});

// esbuild renames a class that names itself (`var InstanceLoader = class _InstanceLoader`), which once let
// Nest's start-up lines past the logger that keeps them off stderr by their class names.
it('says one line on stderr at start-up from the bundle: that it is serving', async () => {
  const session = await resources.server({ env: { SYSTEM1_PROVIDER: 'mock' } }); // resolves on that line
  const lines = session
    .stderr()
    .split('\n')
    .filter((line) => line.trim());
  expect(lines).toEqual([expect.stringMatching(/INFO {2}\[Mcp\] serving 4 tools on stdio/)]);
});
