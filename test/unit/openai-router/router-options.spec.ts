/** serve-openai's settings: [router], SYSTEM1_ROUTER_*, flags; loopback unless opted in; the token from the environment only. */
import { loadConfig } from '../../../src/config/config.loader';
import { settleRouterOptions } from '../../../src/openai-router/router-options';

const load = (toml: string | null, env: Record<string, string> = {}) =>
  loadConfig({
    env: { HOME: '/home/u', ...env },
    platform: 'linux',
    readFile: () => {
      if (toml === null) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return toml;
    },
  });

describe('router options', () => {
  it('defaults: loopback on 8788, the OpenAI API upstream, min_confidence 0.8, no shadow, no token', () => {
    const { options, problems } = settleRouterOptions(load(null), {}, {});
    expect(problems).toEqual([]);
    expect(options).toEqual({
      host: '127.0.0.1',
      port: 8788,
      upstream: new URL('https://api.openai.com/v1'),
      minConfidence: 0.8,
      shadow: false,
      shadowLog: '/home/u/.system1-gateway/logs/router-shadow.jsonl',
    });
  });

  it('flags override the file, and the file the defaults; the token comes from SYSTEM1_ROUTER_TOKEN', () => {
    const config = load('[router]\nport = 9000\nmin_confidence = 0.7\nshadow_log = "~/s.jsonl"\n', {
      SYSTEM1_ROUTER_SHADOW: 'true',
    });
    const { options } = settleRouterOptions(
      config,
      { port: 0, upstream: 'http://127.0.0.1:1234/v1' },
      { HOME: '/home/u', SYSTEM1_ROUTER_TOKEN: ' tok ' },
    );
    expect(options).toMatchObject({
      port: 0,
      minConfidence: 0.7,
      shadow: true,
      shadowLog: '/home/u/s.jsonl',
      upstream: new URL('http://127.0.0.1:1234/v1'),
      token: 'tok',
    });
  });

  it.each([
    [{ host: '0.0.0.0' }, 'router host 0.0.0.0 is not this machine'],
    [{ host: '192.168.1.5' }, 'set [router] allow_non_loopback = true (or --allow-non-loopback)'],
    [
      { upstream: 'http://api.example.com/v1' },
      'router upstream (--upstream) must use https unless it is on this machine',
    ],
    [{ upstream: 'https://user:pw@api.example.com/v1' }, 'must not carry credentials'],
    [{ upstream: 'ftp://x' }, 'must use http or https'],
  ])('refuses %j', (flags, words) => {
    const { options, problems } = settleRouterOptions(load(null), flags, {});
    expect(options).toBeUndefined();
    expect(problems.join('\n')).toContain(words);
  });

  it('binds elsewhere only with the opt-in', () => {
    expect(settleRouterOptions(load(null), { host: '0.0.0.0', allowNonLoopback: true }, {}).options?.host).toBe(
      '0.0.0.0',
    );
    expect(settleRouterOptions(load('[router]\nallow_non_loopback = true\nhost = "::"\n'), {}, {}).options?.host).toBe(
      '::',
    );
    expect(settleRouterOptions(load(null), { host: '::1' }, {}).options?.host).toBe('::1');
  });

  it('a broken [router] key stops it; other config problems do not', () => {
    expect(settleRouterOptions(load('[router]\nmin_confidence = 3\n'), {}, {}).problems[0]).toContain(
      'router.min_confidence',
    );
    const gatewayBroken = load('[gateway]\ntimeout_s = 0\n');
    expect(gatewayBroken.errors.map((error) => error.key)).toEqual(['gateway.timeout_s']);
    const settled = settleRouterOptions(gatewayBroken, {}, {});
    expect(settled.problems).toEqual([]);
    expect(settled.options).toEqual(settleRouterOptions(load(null), {}, {}).options);
  });
});
