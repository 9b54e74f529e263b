import { createCloudflareProvider } from '../../../src/providers/factories/cloudflare';
import { createLayaProvider } from '../../../src/providers/factories/laya';
import { createTypesafeProvider } from '../../../src/providers/factories/typesafe';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { LayaFake } from '../../fakes/laya.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { LibrarySandbox, PIXEL, THREE_QUESTIONS } from './library-setup';

/**
 * A model a call names reaches the engine of a provider built by a factory (dsh-system1's behaviour), and
 * what the call may ask is that model's: the fakes record what they received.
 */
const KEY = 'sk-test-FACTORY-MODELS-1';
let sandbox: LibrarySandbox;
beforeEach(() => (sandbox = new LibrarySandbox()));
afterEach(() => sandbox.close());

describe('createTypesafeProvider', () => {
  let typesafe: TypeSafeFake;
  beforeEach(async () => {
    typesafe = new TypeSafeFake({ apiKey: KEY });
    await typesafe.start();
  });
  afterEach(() => typesafe.stop());

  /** A service with TypeSafe built by the factory for its default model, jev-latest. */
  async function withJev() {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('jev', createTypesafeProvider({ baseURL: typesafe.url.origin, apiKey: KEY }));
    return system1;
  }
  const sentModels = () =>
    typesafe.requestsTo('/v1/systemone').map((request) => (request.body as { model: string }).model);

  it('sends the model the call names, and reports it as requested and executed', async () => {
    const system1 = await withJev();
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'jev', model: 'jev-1.13.0' },
    });
    expect(result.answers.topic.status).toBe('ok');
    expect(sentModels()).toEqual(['jev-1.13.0']);
    expect(result.meta).toMatchObject({
      requested: { provider: 'jev', model: 'jev-1.13.0' },
      executed: { provider: 'jev', model: 'jev-1.13.0' },
    });
  });

  it('sends its own model when the call names none', async () => {
    const system1 = await withJev();
    await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic }, model: { provider: 'jev' } });
    expect(sentModels()).toEqual(['jev-latest']);
  });

  it('answers a box question for a model that has boxes, though its own model has none', async () => {
    const system1 = await withJev();
    const result = await system1.decide({
      state: 'x',
      images: [{ mediaType: 'image/png', data: PIXEL }],
      questions: { mug: { type: 'box', instructions: 'Locate the mug.' } },
      model: { provider: 'jev', model: 'jev-1.14.0' },
    });
    expect(result.answers.mug).toMatchObject({ status: 'ok', answer: { type: 'box' } });
    expect(sentModels()).toEqual(['jev-1.14.0']);
    // Asked of its own model, the same question is refused before sending.
    const refused = await system1.decide({
      state: 'x',
      images: [{ mediaType: 'image/png', data: PIXEL }],
      questions: { mug: { type: 'box', instructions: 'Locate the mug.' } },
      model: { provider: 'jev' },
    });
    expect(refused.answers.mug).toMatchObject({ status: 'error', error: { code: 'unsupported' } });
    expect(sentModels()).toEqual(['jev-1.14.0']);
  });

  it('answers unavailable, naming the model, for one TypeSafe does not serve, without sending', async () => {
    const system1 = await withJev();
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'jev', model: 'jev-9' },
    });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: {
        code: 'unavailable',
        message: expect.stringMatching(/^typesafe cannot ask model "jev-9": .*jev-1\.13\.0/),
      },
    });
    expect(sentModels()).toEqual([]);
  });
});

it('createLayaProvider sends the checkpoint the call names', async () => {
  const laya = new LayaFake();
  await laya.start();
  try {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('own-laya', createLayaProvider({ baseURL: laya.url.origin }));
    const result = await system1.decide({
      state: 'x',
      questions: { refund: THREE_QUESTIONS.refund },
      model: { provider: 'own-laya', model: 'multilingual' },
    });
    expect(result.answers.refund.status).toBe('ok');
    expect(
      laya.requests
        .filter((request) => request.method === 'POST')
        .map((request) => (request.body as { model: string }).model),
    ).toEqual(['multilingual']);
  } finally {
    await laya.stop();
  }
});

it('createCloudflareProvider asks the Clef model the call names', async () => {
  const cloudflare = new CloudflareFake({ apiKey: KEY });
  await cloudflare.start();
  try {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider(
      'clef',
      createCloudflareProvider({ baseURL: cloudflare.url.origin, apiKey: KEY, accountId: cloudflare.accountId }),
    );
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'clef', model: 'clef-flash' },
    });
    expect(result.answers.topic.status).toBe('ok');
    expect(cloudflare.requests.map((request) => request.path)).toEqual([cloudflare.runPath('clef-flash')]);
  } finally {
    await cloudflare.stop();
  }
});
