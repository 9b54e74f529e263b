/** Who may use the router: a blank token is refused at start; a Host the router was not bound to is refused (DNS rebinding). */
import { loadConfig } from '../../../src/config/config.loader';
import { settleRouterOptions } from '../../../src/openai-router/router-options';
import { errorOf, RouterHarness, send } from '../../helpers/router-harness';

const load = (toml: string | null = null, env: Record<string, string> = {}) =>
  loadConfig({
    env: { HOME: '/home/u', ...env },
    platform: 'linux',
    readFile: () => {
      if (toml === null) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return toml;
    },
  });

describe('SYSTEM1_ROUTER_TOKEN', () => {
  it.each(['', '   ', '\t\n'])('set but blank (%j) stops the router instead of turning authentication off', (blank) => {
    const { options, problems } = settleRouterOptions(load(), {}, { SYSTEM1_ROUTER_TOKEN: blank });
    expect(options).toBeUndefined();
    expect(problems.join('\n')).toContain('SYSTEM1_ROUTER_TOKEN is set but blank');
  });

  it('unset leaves the router open on loopback, as before', () => {
    expect(settleRouterOptions(load(), {}, {}).options?.token).toBeUndefined();
  });
});

describe('extra allowed host names', () => {
  it('come from [router] allowed_hosts or SYSTEM1_ROUTER_ALLOWED_HOSTS', () => {
    expect(
      settleRouterOptions(load('[router]\nallowed_hosts = ["router.internal", "box:9000"]\n'), {}, {}).options
        ?.allowedHosts,
    ).toEqual(['router.internal', 'box:9000']);
    expect(
      settleRouterOptions(load(null, { SYSTEM1_ROUTER_ALLOWED_HOSTS: 'a.test, b.test' }), {}, {}).options?.allowedHosts,
    ).toEqual(['a.test', 'b.test']);
  });
});

describe('the Host header', () => {
  const harness = RouterHarness.use();

  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])('%s with the router port is served', async (name) => {
    const router = await harness.start();
    const answer = await send(router.port, {
      method: 'GET',
      path: '/v1/models',
      headers: { host: `${name}:${router.port}` },
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['a name that resolved to 127.0.0.1 (DNS rebinding)', (port: number) => `attacker.example:${port}`],
    ['a loopback name on another port', () => 'localhost:1'],
    ['no port at all', () => 'localhost'],
  ])('%s gets a 403 in the OpenAI error shape, and nothing reaches the upstream', async (_, host) => {
    const router = await harness.start();
    const answer = await send(router.port, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { host: host(router.port) },
      body: '{"model":"m","messages":[]}',
    });
    expect(answer.status).toBe(403);
    expect(errorOf(answer)).toMatchObject({
      code: 'host_not_allowed',
      message: expect.stringContaining('allowed_hosts'),
    });
    expect(harness.upstream.hits).toEqual([]);
  });

  it('a name from allowed_hosts is served, on any port when it gives none', async () => {
    const router = await harness.start({ allowedHosts: ['router.internal', 'other.internal:1'] });
    expect(
      (await send(router.port, { method: 'GET', path: '/v1/models', headers: { host: 'router.internal:443' } })).status,
    ).toBe(200);
    expect(
      (
        await send(router.port, {
          method: 'GET',
          path: '/v1/models',
          headers: { host: `other.internal:${router.port}` },
        })
      ).status,
    ).toBe(403);
    expect(
      (await send(router.port, { method: 'GET', path: '/v1/models', headers: { host: 'other.internal:1' } })).status,
    ).toBe(200);
  });

  it('the --host the router was bound to is served', async () => {
    const router = await harness.start({ host: '127.0.0.2' });
    const answer = await send(router.port, {
      address: '127.0.0.2',
      method: 'GET',
      path: '/v1/models',
      headers: { host: `127.0.0.2:${router.port}` },
    });
    expect(answer.status).toBe(200);
  });
});
