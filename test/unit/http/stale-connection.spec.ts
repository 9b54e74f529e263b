/**
 * An engine that closes an idle kept-alive connection just as the gateway reuses it (its keep-alive timeout
 * ran out): the request never reached it, so the shared engine client sends it once more on a fresh
 * connection. A request the engine did receive and then failed is never sent twice.
 */
import { LlamaServerFake } from '../../fakes/systemone.fake';
import { engineUnderTest, OPTIONS, QUESTION } from '../providers/systemone.shared';

describe('the engine client on a connection the engine closed while idle', () => {
  const engine = engineUnderTest('systemone', () => new LlamaServerFake());

  it.each(['close', 'reset'] as const)(
    'sends the request again on a fresh connection: every decision is answered (the engine %ss it)',
    async (how) => {
      engine.fake.reusedConnections.mode = how;
      const { gateway } = await engine.start();
      const replies = [];
      for (let i = 0; i < 12; i++)
        replies.push(await gateway.decide({ question: QUESTION, options: OPTIONS, context: { turn: i } }));
      for (const reply of replies)
        expect(reply).toMatchObject({
          status: 'decided',
          provider: 'systemone',
          attempts: [{ provider: 'systemone', outcome: 'ok' }],
        });
      // Each decision reached the engine once; the ones lost on a closed connection were never seen.
      expect(
        engine.fake
          .requestsTo('/v1/systemone')
          .map((request) => (request.body as { state: { turn: number } }).state.turn),
      ).toEqual([...Array(12).keys()]);
      expect(engine.fake.reusedConnections.drops).toBeGreaterThan(0);
    },
  );

  it('sends it again within the same deadline: a retry the engine does not answer ends at the timeout', async () => {
    engine.fake.reusedConnections.mode = 'close';
    const { gateway } = await engine.start({ gateway: 'timeout_s = 0.3\nfallback = ["mock"]' });
    expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({ provider: 'systemone' });
    engine.fake.fault = 'hang';
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply.attempts[0]).toMatchObject({
      provider: 'systemone',
      outcome: 'timeout',
      detail: expect.stringContaining('no answer within 0.3 s'),
    });
    expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
    expect(engine.fake.reusedConnections.drops).toBe(1);
    expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(2);
  });

  it('does not send again a request the engine began to answer on a reused connection', async () => {
    const { gateway } = await engine.start({ gateway: 'fallback = ["mock"]' });
    expect(await gateway.decide({ question: QUESTION, options: OPTIONS })).toMatchObject({ provider: 'systemone' });
    engine.fake.fault = 'truncated';
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply.attempts[0]).toMatchObject({ provider: 'systemone', outcome: 'error' });
    expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(2);
  });

  it('does not send again a request the engine reset on a new connection', async () => {
    engine.fake.fault = 'reset';
    const { gateway } = await engine.start({ gateway: 'fallback = ["mock"]' });
    const reply = await gateway.decide({ question: QUESTION, options: OPTIONS });
    expect(reply.attempts[0]).toMatchObject({
      provider: 'systemone',
      outcome: 'error',
      detail: expect.stringContaining('the engine reset the connection'),
    });
    expect(engine.fake.requestsTo('/v1/systemone')).toHaveLength(1);
  });
});
