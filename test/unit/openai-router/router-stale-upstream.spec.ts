/**
 * An upstream that closes an idle kept-alive connection just as the router reuses it (its keep-alive timeout
 * ran out): the request never reached it, so the router sends it once more on a fresh connection. A request
 * the upstream did receive is never sent twice.
 */
import { RouterHarness, send } from '../../helpers/router-harness';

const harness = RouterHarness.use();

/** A request the fast engine cannot take (no schema): the router forwards it as it came. */
const plainChat = (turn: number) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `turn ${turn}` }] });

describe('forwarding to an upstream that closes reused connections', () => {
  it.each(['close', 'reset'] as const)(
    'sends the lost request again on a fresh connection: every caller is answered (the upstream %ss it)',
    async (how) => {
      harness.upstream.reusedConnections.mode = how;
      const router = await harness.start();
      for (let turn = 0; turn < 10; turn++) {
        const answer =
          turn % 2 === 0
            ? await send(router.port, { body: plainChat(turn) })
            : await send(router.port, { method: 'GET', path: '/v1/models' });
        expect(answer.status).toBe(200);
      }
      // Each request reached the upstream once, body intact; the ones lost on a closed connection were never seen.
      expect(
        harness.upstream.hits.map((hit) =>
          hit.method === 'GET'
            ? 'models'
            : (JSON.parse(hit.body.toString('utf8')) as { messages: [{ content: string }] }).messages[0].content,
        ),
      ).toEqual([...Array(10).keys()].map((turn) => (turn % 2 === 0 ? `turn ${turn}` : 'models')));
      expect(harness.upstream.reusedConnections.drops).toBeGreaterThan(0);
    },
  );

  it('does not send again a request the upstream began to answer', async () => {
    const router = await harness.start();
    expect((await send(router.port, { body: plainChat(0) })).status).toBe(200);
    harness.upstream.fault = 'cut-body';
    await send(router.port, { body: plainChat(1) }).catch(() => undefined);
    expect(harness.upstream.hits).toHaveLength(2);
  });
});
