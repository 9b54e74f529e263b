/**
 * The one loopback rule (src/providers/http/endpoint.ts): only literal loopback addresses and the exact name
 * `localhost` are this machine. `localhost.` is a fully qualified name that DNS resolves (it is not in
 * /etc/hosts), so an engine endpoint, the router's host or its upstream spelled that way is another machine.
 */
import dns = require('node:dns');
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { EngineTransportError } from '../../../src/decisions/errors/decision-error';
import { literalAddress } from '../../../src/common/http/localhost';
import { connectLookup, isLoopbackHost, localhostLookup, parseEndpoint } from '../../../src/providers/http/endpoint';
import { proxyTunnelFor } from '../../../src/providers/http/proxy-tunnel';
import { loadConfig } from '../../../src/config/config.loader';
import { settleRouterOptions } from '../../../src/openai-router/router-options';
import { FakeEngine, type FakeReply, type RecordedRequest } from '../../fakes/fake-engine';
import { useRecordingProxy } from '../../helpers/system-proxy';

class OkFake extends FakeEngine {
  readonly name = 'ok';
  protected readonly decisionPaths = ['/decide'];
  protected answer(_request: RecordedRequest): FakeReply {
    return { status: 200, body: { ok: true } };
  }
  protected errorBody(status: number): unknown {
    return { detail: `HTTP ${status}` };
  }
}

/** Names that end in a dot, however written: the WHATWG parser lower-cases them and decodes `%2e` to `.`. */
const DOTTED = ['localhost.', 'LocalHost.', 'LOCALHOST.', 'localhost%2e', 'localhost%2E', 'LocalHost%2e'];

describe('the loopback rule', () => {
  it.each(DOTTED)('the URL parser turns %s into "localhost." (a name DNS resolves)', (written) => {
    expect(new URL(`http://${written}:8765/`).hostname).toBe('localhost.');
  });

  it.each(DOTTED)('http://%s:8765 is not this machine: refused without allow_remote', (written) => {
    const raw = `http://${written}:8765`;
    expect(isLoopbackHost(new URL(raw).hostname)).toBe(false);
    expect(() => parseEndpoint(raw, { allowRemote: false })).toThrow(
      /points at localhost\., which is not this machine \(a name ending in a dot is looked up in DNS.*\); set allow_remote = true/,
    );
  });

  it.each(DOTTED)('a key never travels in clear text to http://%s:8765', (written) => {
    expect(() => parseEndpoint(`http://${written}:8765`, { allowRemote: true, httpsUnlessLoopback: true })).toThrow(
      /must use https/,
    );
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:1'],
    ['127.255.0.9', 'http://127.255.0.9:1'],
    ['localhost', 'http://localhost:1'],
    ['LocalHost', 'http://LocalHost:1'],
    ['::1', 'http://[::1]:1'],
    ['0:0:0:0:0:0:0:1', 'http://[0:0:0:0:0:0:0:1]:1'],
    ['::ffff:127.0.0.1', 'http://[::ffff:127.0.0.1]:1'],
    ['::ffff:7f00:1', 'http://[::ffff:7f00:1]:1'],
  ])('%s is this machine, written raw (a bind address) or in a URL', (raw, url) => {
    expect(isLoopbackHost(raw)).toBe(true);
    expect(isLoopbackHost(new URL(url).hostname)).toBe(true);
  });

  it.each([
    'localhost.',
    'localhost..',
    'localhost.localdomain',
    'localhost.example.com',
    '::ffff:128.0.0.1',
    '::2',
    '0.0.0.0',
    '127.1',
    'foo.localhost',
  ])('%s, written raw, is not', (raw) => expect(isLoopbackHost(raw)).toBe(false));

  describe('the engine client', () => {
    const client = new EngineHttpClient();
    const fake = new OkFake();
    let port: string;
    beforeAll(async () => (port = (await fake.start()).port));
    afterAll(() => fake.stop());
    afterEach(() => jest.restoreAllMocks());

    it.each(DOTTED)('refuses http://%s:PORT without allow_remote, before sending anything', async (written) => {
      fake.requests.length = 0;
      const error = await client
        .request({
          method: 'GET',
          url: new URL(`http://${written}:${port}/decide`),
          signal: AbortSignal.timeout(5000),
          allowRemote: false,
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EngineTransportError);
      expect((error as Error).message).toMatch(/refused to call localhost\.: not this machine/);
      expect(fake.requests).toEqual([]);
    });

    it('connects to http://localhost:PORT at the literal loopback address, never asking DNS, and keeps the Host header', async () => {
      fake.requests.length = 0;
      const lookup = jest.spyOn(dns, 'lookup');
      const reply = await client.request({
        method: 'GET',
        url: new URL(`http://localhost:${port}/decide`),
        signal: AbortSignal.timeout(5000),
        allowRemote: false,
      });
      expect(reply.body).toEqual({ ok: true });
      expect(fake.requests[0].headers.host).toBe(`localhost:${port}`);
      expect(lookup.mock.calls.map(([name]) => name)).not.toContain('localhost');
    });
  });

  describe('with HTTPS_PROXY set', () => {
    const proxy = useRecordingProxy();

    it('https://localhost.:PORT is not bypassed as loopback: it goes through the proxy like any other name', () => {
      expect(proxyTunnelFor(new URL('https://localhost.:8443/'))).toBeDefined();
      expect(proxyTunnelFor(new URL('https://localhost:8443/'))).toBeUndefined();
      expect(proxyTunnelFor(new URL('https://[::1]:8443/'))).toBeUndefined();
      expect(proxy.hits).toEqual([]);
    });
  });

  describe('the router (serve-openai), which uses the same rule', () => {
    const config = loadConfig({
      env: { HOME: '/home/u' },
      platform: 'linux',
      readFile: () => {
        throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      },
    });

    it.each(['localhost.', 'LocalHost.'])('--host %s needs --allow-non-loopback', (host) => {
      const { problems } = settleRouterOptions(config, { host }, {});
      expect(problems.join('\n')).toMatch(/router host .* is not this machine/);
    });

    it.each(DOTTED)(
      "--upstream http://%s:PORT must use https (the caller's key would travel in clear text)",
      (written) => {
        const { problems } = settleRouterOptions(config, { upstream: `http://${written}:8000/v1` }, {});
        expect(problems.join('\n')).toMatch(/router upstream \(--upstream\) must use https/);
      },
    );

    it('--host localhost and --upstream http://localhost:PORT stay allowed', () => {
      expect(
        settleRouterOptions(config, { host: 'localhost', upstream: 'http://localhost:8000/v1' }, {}).problems,
      ).toEqual([]);
    });
  });
});

describe('localhost, resolved here', () => {
  it.each([
    [{ all: true }, ['127.0.0.1', '::1']],
    [{ all: true, family: 6 }, ['::1']],
    [{ family: 4 }, ['127.0.0.1']],
  ])('answers %j with %j', async (options, expected) => {
    const answer = await new Promise<string[]>((resolve, reject) =>
      localhostLookup(
        'LocalHost',
        options as never,
        ((error: Error | null, address: string | { address: string }[]) => {
          if (error) reject(error);
          else resolve(typeof address === 'string' ? [address] : address.map((entry) => entry.address));
        }) as never,
      ),
    );
    expect(answer).toEqual(expected);
  });

  it('is given only for the name localhost, never for localhost. or another name', () => {
    expect(connectLookup(new URL('http://LOCALHOST:1/'))).toBe(localhostLookup);
    for (const url of ['http://localhost.:1/', 'http://127.0.0.1:1/', 'http://example.invalid/'])
      expect(connectLookup(new URL(url))).toBeUndefined();
  });

  it('gives the literal address to bind for a loopback host', () => {
    expect(['localhost', 'LocalHost', '127.0.0.1', '[::1]', '::1'].map(literalAddress)).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
      '::1',
      '::1',
    ]);
  });
});
