import { getEventListeners } from 'node:events';
import { EngineHttpClient, MAX_RESPONSE_BYTES } from '../../../src/providers/http/engine-http.client';
import { EngineBodyError, EngineStatusError, EngineTransportError } from '../../../src/decisions/errors/decision-error';
import { EndpointError, isLoopbackHost, parseEndpoint } from '../../../src/providers/http/endpoint';
import { type Fault, FakeEngine, type FakeReply, type RecordedRequest } from '../../fakes/fake-engine';
import { RecordingServer } from '../../fakes/recording-server';
import { useRecordingProxy } from '../../helpers/system-proxy';

/** A minimal engine: POST /decide answers {"ok": true}; errors in FastAPI style. */
class JsonFake extends FakeEngine {
  readonly name = 'json';
  protected readonly decisionPaths = ['/decide'];
  protected answer(_request: RecordedRequest): FakeReply {
    return { status: 200, body: { ok: true } };
  }
  protected errorBody(status: number): unknown {
    return { detail: `engine says ${status} for key sk-test-HTTP-SECRET-42` };
  }
}

const SECRET = 'sk-test-HTTP-SECRET-42';

describe('endpoint rules', () => {
  it.each([
    '127.0.0.1',
    '127.1',
    '0x7f000001',
    '2130706433',
    '127.8.9.10',
    '[::1]',
    'localhost',
    'LOCALHOST',
    '[::ffff:127.0.0.1]',
  ])('%s counts as this machine', (host) => {
    expect(isLoopbackHost(new URL(`http://${host}:8765/`).hostname)).toBe(true);
    expect(parseEndpoint(`http://${host}:8765`, { allowRemote: false }).port).toBe('8765');
  });

  it.each([
    '10.0.0.5',
    '192.168.1.2',
    '0.0.0.0',
    'example.invalid',
    'api.anthropic.com',
    '[::2]',
    'localhost.example.com',
    '128.0.0.1',
  ])('%s does not, unless allow_remote is set', (host) => {
    expect(isLoopbackHost(new URL(`http://${host}/`).hostname)).toBe(false);
    expect(() => parseEndpoint(`http://${host}`, { allowRemote: false })).toThrow(/set allow_remote = true/);
    expect(parseEndpoint(`http://${host}`, { allowRemote: true }).hostname).toBeTruthy();
  });

  it.each([
    ['not a url', /must be an http\(s\) URL/],
    ['ftp://127.0.0.1/', /must use http or https/],
    ['http://user:pw@127.0.0.1/', /must not carry credentials/],
  ])('refuses %s', (raw, words) => {
    expect(() => parseEndpoint(raw, { allowRemote: true })).toThrow(EndpointError);
    expect(() => parseEndpoint(raw, { allowRemote: true })).toThrow(words);
  });

  it('asks for https off this machine when a key travels', () => {
    expect(() => parseEndpoint('http://api.example.com', { allowRemote: true, httpsUnlessLoopback: true })).toThrow(
      /must use https/,
    );
    expect(parseEndpoint('http://127.0.0.1:9', { allowRemote: true, httpsUnlessLoopback: true }).protocol).toBe(
      'http:',
    );
  });
});

describe('EngineHttpClient', () => {
  const client = new EngineHttpClient();
  const fake = new JsonFake();
  let base: URL;
  beforeAll(async () => (base = await fake.start()));
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.fault = 'none';
    fake.requests.length = 0;
  });

  const call = (path = '/decide', signal = AbortSignal.timeout(5000)) =>
    client.request({
      method: 'POST',
      url: new URL(path, base),
      body: { question: 'q' },
      headers: { authorization: `Bearer ${SECRET}` },
      signal,
      allowRemote: false,
      secrets: [SECRET],
    });

  it('posts JSON and returns the parsed reply', async () => {
    const reply = await call();
    expect(reply).toMatchObject({ status: 200, body: { ok: true } });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/decide', body: { question: 'q' } });
    expect(fake.requests[0].headers).toMatchObject({
      'content-type': 'application/json',
      authorization: `Bearer ${SECRET}`,
    });
  });

  const failure = async (fault: Fault) => {
    fake.fault = fault;
    const error = await call().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain(SECRET);
    return error as Error;
  };

  it.each([
    ['status-500', EngineStatusError, /^HTTP 500 from 127\.0\.0\.1:\d+: engine says 500 for key \[redacted\]$/],
    ['status-503', EngineStatusError, /HTTP 503 .* \(retry after 1 s\)$/],
    ['status-429', EngineStatusError, /HTTP 429 .* \(retry after 1 s\)$/],
    ['html-502', EngineStatusError, /^HTTP 502 from 127\.0\.0\.1:\d+$/],
    ['redirect', EngineStatusError, /redirect refused: HTTP 302 .*follows no redirects/],
    ['reset', EngineTransportError, /reset the connection|cut off/],
    ['truncated', EngineTransportError, /cut off|reset the connection/],
    ['huge', EngineTransportError, new RegExp(`larger than ${MAX_RESPONSE_BYTES} bytes`)],
    ['non-json', EngineBodyError, /is not JSON \(text\/plain, \d+ bytes\)/],
  ] as const)('turns %s into a %p that says what happened', async (fault, type, words) => {
    const error = await failure(fault);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toMatch(words);
  });

  it('follows no redirect: the target receives nothing', async () => {
    const target = new RecordingServer();
    const targetUrl = await target.start();
    try {
      fake.redirectTo = new URL('/steal', targetUrl).href;
      await failure('redirect');
      expect(target.hits).toEqual([]);
    } finally {
      await target.stop();
    }
  });

  it.each(['hang', 'hang-after-headers', 'stall-body'] as const)(
    'ends a %s reply when the attempt aborts',
    async (fault) => {
      fake.fault = fault;
      const controller = new AbortController();
      const reason = new Error('deadline');
      setTimeout(() => controller.abort(reason), 150);
      await expect(call('/decide', controller.signal)).rejects.toBe(reason);
    },
  );

  it('sends nothing when the attempt is over before the call, and leaves no listener on a signal it finished with', async () => {
    const reason = new Error('cancelled before the call');
    await expect(call('/decide', AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(fake.requests).toEqual([]);

    // One signal through many calls (a provider may reuse its attempt's signal): each call takes its listener off.
    const controller = new AbortController();
    const listening = () => getEventListeners(controller.signal, 'abort').length;
    for (let i = 0; i < 3; i++) await call('/decide', controller.signal);
    fake.fault = 'status-500';
    await expect(call('/decide', controller.signal)).rejects.toBeInstanceOf(EngineStatusError);
    expect(listening()).toBe(0);
    expect(fake.requests).toHaveLength(4);
  });

  it('reports a refused connection with a hint', async () => {
    const closed = new JsonFake();
    const url = await closed.start();
    await closed.stop();
    await expect(
      client.request({ method: 'GET', url, signal: AbortSignal.timeout(2000), allowRemote: false }),
    ).rejects.toThrow(/connection refused: is the engine running\? \(127\.0\.0\.1:\d+\)/);
  });

  it('refuses another machine unless allowed, before sending anything', async () => {
    await expect(
      client.request({
        method: 'GET',
        url: new URL('http://10.255.255.1/'),
        signal: AbortSignal.timeout(2000),
        allowRemote: false,
      }),
    ).rejects.toThrow(/refused to call 10\.255\.255\.1/);
  });

  describe('with HTTP_PROXY and HTTPS_PROXY set to a recording proxy', () => {
    const proxy = useRecordingProxy();

    it.each(['127.0.0.1', 'localhost', '127.1'])(
      'calls a loopback engine at %s directly: the proxy sees nothing',
      async (host) => {
        const url = new URL(`/decide`, base);
        url.hostname = host;
        const reply = await client.request({
          method: 'POST',
          url,
          body: {},
          headers: { authorization: `Bearer ${SECRET}` },
          signal: AbortSignal.timeout(5000),
          allowRemote: false,
        });
        expect(reply.status).toBe(200);
        expect(proxy.hits).toEqual([]);
      },
    );

    it('tunnels https to another machine with CONNECT, so the proxy never sees the request or its key', async () => {
      const error = await client
        .request({
          method: 'GET',
          url: new URL('https://api.example.invalid/v1/models'),
          headers: { 'x-api-key': SECRET },
          signal: AbortSignal.timeout(5000),
          allowRemote: true,
          secrets: [SECRET],
        })
        .catch((caught: Error) => caught);
      // The proxy refuses the tunnel (502): reported as the proxy's refusal, never as the engine's answer.
      expect(error).toBeInstanceOf(EngineTransportError);
      expect((error as Error).message).toMatch(
        /^the proxy 127\.0\.0\.1:\d+ refused to open a tunnel to api\.example\.invalid:443 \(HTTP 502\)/,
      );
      expect(proxy.hits.map((hit) => [hit.method, hit.url])).toEqual([['CONNECT', 'api.example.invalid:443']]);
      expect(JSON.stringify(proxy.hits)).not.toContain(SECRET);
    });
  });
});
