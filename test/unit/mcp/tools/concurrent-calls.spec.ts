/** Many calls in flight on one session: each is answered, with its own request id and its own decision. */
import { LayaFake } from '../../../fakes/laya.fake';
import { eventually } from '../../../helpers/eventually';
import { type InMemoryGateway, InMemoryGateways } from '../../../helpers/in-memory-mcp';

const gateways = InMemoryGateways.perFile();
let gateway: InMemoryGateway;

beforeAll(async () => {
  gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
});

it('answers 200 concurrent system1_decide calls, each with its own request id and options', async () => {
  const N = 200;
  const replies = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      gateway.decide({
        question: `Question ${i}?`,
        options: [`first-${i}`, `second-${i}`],
        request_id: `concurrent-${i}`,
      }),
    ),
  );
  expect(replies).toHaveLength(N);
  replies.forEach(({ body }, i) => {
    expect(body).toMatchObject({
      request_id: `concurrent-${i}`,
      status: 'decided',
      decision: `first-${i}`,
      error: null,
    });
  });
  expect(new Set(replies.map(({ body }) => body.request_id)).size).toBe(N);
});

it('keeps a slow call from blocking the others on the same session', async () => {
  // The engine holds the first question unanswered (for as long as the 300 s timeout): the other calls,
  // sent after it reached the engine, must all be answered while it is still pending.
  const engine = new LayaFake();
  engine.chooseFault = (request) => (JSON.stringify(request.body).includes('Hold me?') ? 'hang' : 'none');
  const endpoint = (await engine.start()).origin;
  try {
    const slow = await gateways.connect({
      env: { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: endpoint, SYSTEM1_TIMEOUT_S: '300' },
    });
    let held: 'pending' | 'settled' = 'pending';
    const holding = slow.decide({ question: 'Hold me?', request_id: 'held' }).then(
      () => (held = 'settled'),
      () => (held = 'settled'),
    );
    await eventually(() => engine.requestsTo('/v1/systemone').length === 1, 'the held call to reach the engine');
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => slow.decide({ question: `Q ${i}?`, request_id: `quick-${i}` })),
    );
    replies.forEach(({ body }, i) =>
      expect(body).toMatchObject({ request_id: `quick-${i}`, status: 'decided', provider: 'laya' }),
    );
    expect(held).toBe('pending');
    await slow.close();
    await holding;
  } finally {
    await engine.stop();
  }
});
