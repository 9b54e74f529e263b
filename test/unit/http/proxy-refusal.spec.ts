/**
 * A system proxy that refuses the CONNECT tunnel (a policy 403, a 407 for missing proxy credentials) never
 * reached the engine: the key was never sent. The refusal is a transport failure naming the proxy, never
 * the engine's answer and never "the key was refused"; the proxy's credentials are never shown.
 */
import { EngineHttpClient } from '../../../src/providers/http/engine-http.client';
import { EngineStatusError, EngineTransportError, toDecisionError } from '../../../src/decisions/errors/decision-error';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { HealthService } from '../../../src/decisions/pipeline/health.service';
import { gatewayApp } from '../../helpers/gateway-app';
import { useRecordingProxy } from '../../helpers/system-proxy';
import { RecordingServer } from '../../fakes/recording-server';

const KEY = 'sk-test-PROXY-REFUSAL-KEY-77';
const PROXY_USER = 'proxyuser';
const PROXY_PASSWORD = 'proxy-PASSWORD-SECRET-5';

describe.each([403, 407])('a proxy that answers CONNECT with %i', (status) => {
  const proxy = useRecordingProxy({ connectStatus: status, credentials: `${PROXY_USER}:${PROXY_PASSWORD}` });
  const client = new EngineHttpClient();

  it('is a transport failure naming the proxy and its status, never its credentials', async () => {
    const error = await client
      .request({
        method: 'GET',
        url: new URL('https://api.engine.invalid/v1/models'),
        headers: { authorization: `Bearer ${KEY}` },
        signal: AbortSignal.timeout(5000),
        allowRemote: true,
        secrets: [KEY],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EngineTransportError);
    expect(error).not.toBeInstanceOf(EngineStatusError);
    const port = new URL(process.env.HTTPS_PROXY!).port;
    expect((error as Error).message).toBe(
      `the proxy 127.0.0.1:${port} refused to open a tunnel to api.engine.invalid:443 (HTTP ${status}); the request was not sent: check HTTPS_PROXY and NO_PROXY, or the proxy's rules`,
    );
    expect(toDecisionError(error, 1000).code).toBe('unavailable');
    expect(proxy.hits.map((hit) => [hit.method, hit.url])).toEqual([['CONNECT', 'api.engine.invalid:443']]);
    expect(JSON.stringify(proxy.hits)).not.toContain(KEY);
  });

  it('reaches TypeSafe users as the proxy refusing the tunnel, not as TypeSafe refusing the key, in decisions and health', async () => {
    const logs: string[] = [];
    const app = await gatewayApp({
      toml: '[gateway]\nprovider = "typesafe"\n[providers.typesafe]\nendpoint = "https://api.typesafe.invalid"\n',
      env: { SYSTEM1_TYPESAFE_API_KEY: KEY },
      logs,
    });
    try {
      const reply = await app
        .get(DecideService)
        .decide({ question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] });
      const report = await app.get(HealthService).health();
      expect(reply).toMatchObject({ status: 'error' });
      expect(reply.attempts[0].detail).toMatch(
        new RegExp(
          `^the proxy 127\\.0\\.0\\.1:\\d+ refused to open a tunnel to api\\.typesafe\\.invalid:443 \\(HTTP ${status}\\)`,
        ),
      );
      expect(report.providers[0]).toMatchObject({
        ok: false,
        detail: expect.stringContaining('refused to open a tunnel'),
      });
      const everything = JSON.stringify(reply) + JSON.stringify(report) + logs.join('\n');
      expect(everything).not.toMatch(/refused the API key|proxy policy/);
      for (const secret of [KEY, PROXY_PASSWORD, PROXY_USER]) expect(everything).not.toContain(secret);
    } finally {
      await app.close();
    }
  });
});

describe('a proxy that cannot be reached', () => {
  const saved = { ...process.env };
  afterEach(() => (process.env = saved));

  it('is named as the proxy, not as the engine ("is the engine running?")', async () => {
    const closed = new RecordingServer();
    const address = await closed.start();
    await closed.stop();
    address.username = PROXY_USER;
    address.password = PROXY_PASSWORD;
    process.env = { ...saved, HTTPS_PROXY: address.href, https_proxy: address.href, NO_PROXY: '', no_proxy: '' };
    const error = await new EngineHttpClient()
      .request({
        method: 'GET',
        url: new URL('https://api.engine.invalid/v1/models'),
        signal: AbortSignal.timeout(5000),
        allowRemote: true,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EngineTransportError);
    expect((error as Error).message).toBe(
      `could not reach the proxy 127.0.0.1:${address.port} to tunnel to api.engine.invalid:443 (ECONNREFUSED); the request was not sent: check HTTPS_PROXY`,
    );
  });
});
