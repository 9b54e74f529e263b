/**
 * What a library user gets for a call that names its model: the cooldown (which `cooldown: false` turns off,
 * as dsh-system1 has none), and the caller-model rule it may opt into with `callerModels`.
 */
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { LayaFake } from '../../fakes/laya.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { LibrarySandbox, TYPESAFE_KEY, waitFor } from './library-setup';

const QUESTIONS = { merge: { type: 'noul' as const, instructions: 'Is the change safe to merge?' } };

describe('createSystem1 and a call that names its model', () => {
  let laya: LayaFake;
  let typesafe: TypeSafeFake;
  let sandbox: LibrarySandbox;
  const config = () =>
    `[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "${laya.url.origin}"\n[providers.typesafe]\nendpoint = "${typesafe.url.origin}"\n`;

  beforeEach(async () => {
    laya = new LayaFake();
    typesafe = new TypeSafeFake({ apiKey: TYPESAFE_KEY });
    await Promise.all([laya.start(), typesafe.start()]);
    sandbox = new LibrarySandbox();
  });
  afterEach(async () => {
    await sandbox.close();
    await Promise.all([laya.stop(), typesafe.stop()]);
  });

  const twoCalls = async (options = {}) => {
    laya.fault = 'hang';
    const system1 = await sandbox.open(config(), {}, { timeoutMs: 1000, ...options });
    const first = await system1.decide({ state: 's', questions: QUESTIONS, model: { provider: 'laya' } });
    const second = await system1.decide({ state: 's', questions: QUESTIONS, model: { provider: 'laya' } });
    return [first, second].map((result) => result.answers.merge);
  };

  it('skips an engine that timed out for the cooldown by default, even when the call names it', async () => {
    const [first, second] = await twoCalls();
    expect(first).toMatchObject({ status: 'error', error: { code: 'timeout' } });
    expect(second).toEqual({
      status: 'error',
      error: { code: 'unavailable', message: expect.stringMatching(/^cooling down: \d+ s left$/) },
    });
    // The fake records a request once its body is in, which may be after the call gave up on it.
    await waitFor(() => laya.requestsTo('/v1/systemone').length > 0, 'the first call reached the engine');
    expect(laya.requestsTo('/v1/systemone')).toHaveLength(1);
  });

  it('asks it every time with cooldown: false (dsh-system1 has no cooldown)', async () => {
    const [first, second] = await twoCalls({ cooldown: false });
    expect(first).toMatchObject({ status: 'error', error: { code: 'timeout' } });
    expect(second).toMatchObject({ status: 'error', error: { code: 'timeout' } });
    await waitFor(() => laya.requestsTo('/v1/systemone').length === 2, 'both calls reached the engine');
  });

  it('refuses cooldown that is not a boolean when the service is created', async () => {
    await expect(sandbox.open(config(), {}, { cooldown: 'no' as unknown as boolean })).rejects.toThrow(
      'cooldown must be true or false',
    );
  });

  it('lets a call name any configured provider by default', async () => {
    const system1 = await sandbox.open(config());
    const result = await system1.decide({ state: 's', questions: QUESTIONS, model: { provider: 'typesafe' } });
    expect(result.meta.executed).toMatchObject({ provider: 'typesafe' });
  });

  it('with callerModels, refuses a model outside the chain and the list before anything is sent', async () => {
    const system1 = await sandbox.open(config(), {}, { callerModels: ['typesafe:jev-1.14.0'] });
    const call = system1.decide({
      state: 's',
      questions: QUESTIONS,
      model: { provider: 'typesafe', model: 'jev-latest' },
    });
    await expect(call).rejects.toThrow(System1InputError);
    await expect(call).rejects.toThrow(
      'model is not one that callers may choose here (allowed: laya, typesafe:jev-1.14.0; the operator adds more with the callerModels option)',
    );
    expect(typesafe.requests).toHaveLength(0);
    const listed = await system1.decide({
      state: 's',
      questions: QUESTIONS,
      model: { provider: 'typesafe', model: 'jev-1.14.0' },
    });
    expect(listed.meta.executed).toMatchObject({ provider: 'typesafe' });
    const chain = await system1.decide({ state: 's', questions: QUESTIONS, model: { provider: 'laya' } });
    expect(chain.meta.executed).toMatchObject({ provider: 'laya' });
  });
});
