/**
 * Behind a reverse proxy, a load balancer or tracing: the headers they add do not change what a correct answer
 * is, so an eligible request stays with the fast engine, and a forwarded one carries them upstream as sent.
 */
import { zodResponseFormat } from 'openai/helpers/zod';
import { FAST_OBJECT, NETFLIX, SYSTEM, Transaction } from '../../fixtures/bank-transaction';
import { RouterHarness, send } from '../../helpers/router-harness';

const harness = RouterHarness.use();

const messages = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: NETFLIX },
];
const eligible = JSON.stringify({
  model: 'gpt-4o-mini',
  messages,
  response_format: zodResponseFormat(Transaction, 'Transaction'),
});
const withoutSchema = JSON.stringify({ model: 'gpt-4o-mini', messages });

/** What nginx, Caddy, Traefik, Envoy, a cloud load balancer, Cloudflare and the common tracers add. */
const ADDED_ON_THE_WAY: Record<string, string> = {
  'x-forwarded-for': '203.0.113.7, 10.0.0.2',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'ai.example.com',
  'x-forwarded-port': '443',
  'x-real-ip': '203.0.113.7',
  forwarded: 'for=203.0.113.7;proto=https;host=ai.example.com',
  via: '1.1 nginx, 1.1 google',
  'true-client-ip': '203.0.113.7',
  'cdn-loop': 'cloudflare',
  'cf-connecting-ip': '203.0.113.7',
  'cf-ray': '8f1e2d3c4b5a6978-AMS',
  'x-envoy-external-address': '203.0.113.7',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'congo=t61rcWkgMzE',
  baggage: 'userId=alice',
  b3: '80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1',
  'x-b3-traceid': '80f198ee56343ba864fe8b2a57d3eff7',
  'x-b3-spanid': 'e457b5a2e4d86bd1',
  'x-amzn-trace-id': 'Root=1-67891233-abcdef012345678912345678',
  'x-cloud-trace-context': '105445aa7843bc8bf206b12000100000/1;o=1',
  'x-datadog-trace-id': '1234567890',
  'uber-trace-id': '4bf92f3577b34da6:00f067aa0ba902b7:0:1',
  'sentry-trace': '4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1',
  'x-request-id': 'req-from-the-proxy',
  'x-correlation-id': 'corr-1',
};

describe('headers a proxy or a tracer adds', () => {
  it.each(Object.entries(ADDED_ON_THE_WAY))(
    '%s alone leaves an eligible request with the fast engine',
    async (name, value) => {
      const router = await harness.start();
      const answer = await send(router.port, { body: eligible, headers: { [name]: value } });
      expect(answer.headers['x-system1-route']).toBe('fast');
      expect(
        JSON.parse(
          (JSON.parse(answer.text) as { choices: [{ message: { content: string } }] }).choices[0].message.content,
        ),
      ).toEqual(FAST_OBJECT);
      expect(harness.upstream.hits).toEqual([]);
    },
  );

  it('all together leave it with the fast engine too', async () => {
    const router = await harness.start();
    const answer = await send(router.port, { body: eligible, headers: ADDED_ON_THE_WAY });
    expect(answer.headers['x-system1-route']).toBe('fast');
    expect(harness.upstream.hits).toEqual([]);
  });

  it('are forwarded upstream as they came, this router added to Via', async () => {
    const router = await harness.start();
    const answer = await send(router.port, { body: withoutSchema, headers: ADDED_ON_THE_WAY });
    expect(answer.status).toBe(200);
    const received = harness.upstream.hits[0].headers;
    for (const [name, value] of Object.entries(ADDED_ON_THE_WAY))
      expect([name, received[name]]).toEqual([
        name,
        name === 'via' ? expect.stringMatching(/^1\.1 nginx, 1\.1 google, 1\.1 system1-router-[0-9a-f]{8}$/) : value,
      ]);
  });

  it('a header that may change the answer still sends the request to the slow model, named', async () => {
    const router = await harness.start();
    const answer = await send(router.port, {
      body: eligible,
      headers: { ...ADDED_ON_THE_WAY, 'openai-beta': 'assistants=v2' },
    });
    expect(answer.headers['x-system1-route']).toBe(
      'ineligible; detail="the request carries header \\"openai-beta\\" (extra_headers)"',
    );
    expect(harness.upstream.hits).toHaveLength(1);
  });
});
