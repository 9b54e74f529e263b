/** `system1 toggle off|on|status` pauses and resumes a running server from its next call, with no restart. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { requireBuild, Resources, runCli } from './helpers/gateway';
import { fifoIt, makeFifo } from '../helpers/fifo';

beforeAll(requireBuild);
const resources = Resources.perTest();

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

it('pauses and resumes one running server, which keeps the same process throughout', async () => {
  const gateway = await resources.server({ env: { SYSTEM1_PROVIDER: 'mock' } });
  const pid = gateway.pid;
  expect(pid).toEqual(expect.any(Number));

  expect((await gateway.decide(ASK)).body.status).toBe('decided');
  expect((await gateway.health()).status).toBe('ok');
  const before = await runCli(['toggle', 'status'], gateway.env);
  expect(before.code).toBe(0);
  expect(before.stdout).toMatch(/\bon\b/);
  expect(before.stdout).not.toMatch(/paused/i);

  // Off: the next decide abstains, saying why, and health says paused.
  const off = await runCli(['toggle', 'off'], gateway.env);
  expect(off.code).toBe(0);
  expect(existsSync(path.join(gateway.sandbox.install, 'paused'))).toBe(true);
  const paused = await gateway.decide({ ...ASK, request_id: 'while-paused' });
  expect(paused.isError).toBe(false);
  expect(paused.body).toMatchObject({ request_id: 'while-paused', status: 'abstained', decision: null, error: null });
  expect(paused.body.rationale).toMatch(/paused/i);
  const pausedHealth = await gateway.health();
  expect(pausedHealth.status).toBe('paused');
  const status = await runCli(['toggle', 'status'], gateway.env);
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/paused/i);

  // On again: decides, health ok.
  const on = await runCli(['toggle', 'on'], gateway.env);
  expect(on.code).toBe(0);
  const resumed = await gateway.decide({ ...ASK, request_id: 'after-resume' });
  expect(resumed.body).toMatchObject({ request_id: 'after-resume', status: 'decided', decision: 'rerun' });
  expect((await gateway.health()).status).toBe('ok');
  expect((await runCli(['toggle', 'status'], gateway.env)).stdout).not.toMatch(/paused/i);

  expect(gateway.pid).toBe(pid);
  // Six CLI starts beside a running server: on a loaded 2-core machine that is more than the default 30 s.
}, 90_000);

it('rejects an unknown toggle action with a non-zero exit', async () => {
  const sandbox = resources.sandbox();
  const result = await runCli(['toggle', 'sideways'], sandbox.env({ SYSTEM1_PROVIDER: 'mock' }));
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('sideways');
});

fifoIt('toggle status with a FIFO planted as the pause file says paused without waiting on it', async () => {
  const sandbox = resources.sandbox();
  makeFifo(sandbox.install, 'paused');
  const status = await runCli(['toggle', 'status'], sandbox.env({ SYSTEM1_PROVIDER: 'mock' }), 20_000);
  expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^System-1 is paused: /) });
});
