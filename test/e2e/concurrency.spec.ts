/** Many calls in flight on one session: each is answered, with its own request id and its own decision. */
import { GatewaySession, requireBuild, Resources } from './helpers/gateway';

const resources = Resources.perFile();
let gateway: GatewaySession;

beforeAll(async () => {
  requireBuild();
  gateway = await resources.server({ env: { SYSTEM1_PROVIDER: 'mock' } });
});

it('answers 200 concurrent system1_decide calls, each with its own request id and options', async () => {
  const N = 200;
  const replies = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      gateway.decide({ question: `Question ${i}?`, options: [`first-${i}`, `second-${i}`], request_id: `concurrent-${i}` }),
    ),
  );
  expect(replies).toHaveLength(N);
  replies.forEach(({ body }, i) => {
    expect(body).toMatchObject({ request_id: `concurrent-${i}`, status: 'decided', decision: `first-${i}`, error: null });
  });
  expect(new Set(replies.map(({ body }) => body.request_id)).size).toBe(N);
});

it('keeps a slow call from blocking the others on the same session', async () => {
  const slow = await resources.server({ env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_DELAY_S: '1.5' } });
  const started = Date.now();
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => slow.decide({ question: 'Q?', request_id: `slow-${i}` })));
  replies.forEach(({ body }, i) => expect(body).toMatchObject({ request_id: `slow-${i}`, status: 'decided' }));
  // Twenty 1.5 s answers side by side, not one after another (30 s).
  expect(Date.now() - started).toBeLessThan(6000);
});
