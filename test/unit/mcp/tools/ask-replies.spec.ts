/**
 * A careless engine's reply, as an MCP client reads it: what it says beside its answers is checked like the
 * answers (a model name that is no name is dropped with one warning), and answers to questions nobody asked
 * are one counted warning, not one each.
 */
import { TypedSystemOneFake } from '../../../fakes/typed-systemone.fake';
import { InMemoryGateways } from '../../../helpers/in-memory-mcp';
import type { Json } from '../../../helpers/tool-reply';

const gateways = InMemoryGateways.perTest();

let fake: TypedSystemOneFake;
beforeEach(async () => {
  fake = new TypedSystemOneFake();
  await fake.start();
});
afterEach(() => fake.stop());

it('drops a model name of 1,000 characters and counts 20,000 answers to questions not asked in one warning', async () => {
  const stray = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`s${i}`, 0]));
  fake.reshape = (reply: Json) => ({ ...reply, model: 'm'.repeat(1000), answers: { ...reply.answers, ...stray } });
  const gateway = await gateways.connect({
    toml: `[gateway]\nprovider = "systemone"\n[providers.systemone]\nendpoint = "${fake.url.origin}"\nmodel = "d1"\n`,
  });
  const { body, isError } = await gateway.call('system1_ask', {
    state: 'x',
    questions: [{ id: 'refund', type: 'noul', instructions: 'Is it about a refund?' }],
  });
  expect(isError).toBe(false);
  expect(body.answers.refund).toMatchObject({ status: 'ok', answer: { type: 'noul' } });
  expect(body.model).toEqual({ provider: 'systemone', model: 'd1' });
  expect(body.warnings).toEqual([
    'systemone reported its model as a string, not a name of at most 256 characters (ignored)',
    'systemone: 20000 answers to questions not asked were ignored ("s0", "s1", "s2" and 19997 more)',
  ]);
});
