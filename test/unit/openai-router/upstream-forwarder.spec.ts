import { OpenAiUpstreamFake } from '../../fakes/openai-upstream.fake';
import { useRecordingProxy } from '../../helpers/system-proxy';
import { UpstreamForwarder } from '../../../src/openai-router/upstream-forwarder';

const KEY = 'sk-caller-FORWARDER-KEY-31';

const call = (signal = AbortSignal.timeout(5000)) => ({
  method: 'POST',
  path: '/chat/completions',
  query: '',
  headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', host: 'router' },
  body: Buffer.from('{"model":"gpt-4o-mini","messages":[]}'),
  signal,
});

describe('the upstream forwarder with HTTP_PROXY and HTTPS_PROXY set', () => {
  const proxy = useRecordingProxy();

  it('tunnels an https upstream on another machine with CONNECT: the proxy never sees the request or the key', async () => {
    // The recording proxy refuses the tunnel (502): a 502 naming the proxy's refusal, never relayed as the upstream's answer.
    await expect(new UpstreamForwarder(new URL('https://api.example.invalid/v1')).open(call())).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('PROXY_TUNNEL_REFUSED'),
    });
    expect(proxy.hits.map((hit) => [hit.method, hit.url])).toEqual([['CONNECT', 'api.example.invalid:443']]);
    expect(JSON.stringify(proxy.hits)).not.toContain(KEY);
  });

  it('calls a loopback upstream directly: the proxy sees nothing', async () => {
    const upstream = new OpenAiUpstreamFake();
    const base = await upstream.start();
    try {
      const response = await new UpstreamForwarder(new URL(base)).open(call());
      response.resume();
      expect(response.statusCode).toBe(200);
      expect(proxy.hits).toEqual([]);
      expect(upstream.hits[0].headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await upstream.stop();
    }
  });
});
