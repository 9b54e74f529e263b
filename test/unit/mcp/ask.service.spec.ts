/**
 * `system1_ask` below the transport: what AskService hands the pipeline (images, longContext) and what it
 * hands back (fallbacks), against a TypeSafe fake (jev-1.14.0, which takes images) over real HTTP.
 */
import { type TestingModule } from '@nestjs/testing';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import { AskService } from '../../../src/mcp/ask/ask.service';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { gatewayApp } from '../../helpers/gateway-app';

const KEY = 'ask-unit-key-3f9c1a';
/** A 1x1 PNG: the smallest image an engine that reads images takes. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGES = [{ mediaType: 'image/png', data: PIXEL }];
const ASK = {
  state: 'The photo shows a mug on a desk.',
  questions: [
    { id: 'topic', type: 'choice', instructions: 'What is on the desk?', criteria: { mug: 'A mug', lamp: 'A lamp' } },
  ],
};

describe('AskService', () => {
  let fake: TypeSafeFake;
  let app: TestingModule | undefined;
  beforeEach(async () => {
    fake = new TypeSafeFake({ apiKey: KEY });
    await fake.start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await fake.stop();
  });
  const start = async (gateway = '') => {
    const toml = `[gateway]\nprovider = "typesafe"\n${gateway}\n[providers.typesafe]\nendpoint = "${fake.url.origin}"\nmodel = "jev-1.14.0"\n`;
    app = await gatewayApp({ toml, env: { SYSTEM1_TYPESAFE_API_KEY: KEY } });
    return { service: app.get(AskService), pipeline: jest.spyOn(app.get(DecisionService), 'decide') };
  };
  const engineBodies = () => fake.requestsTo('/v1/systemone').map((request) => request.body as Record<string, unknown>);

  it('hands the images and longContext to the pipeline, which sends them to the engine', async () => {
    const { service, pipeline } = await start();
    const { response, invalid } = await service.ask({ ...ASK, images: IMAGES, longContext: true });
    expect(invalid).toBe(false);
    expect(pipeline).toHaveBeenCalledTimes(1);
    expect(pipeline.mock.calls[0][0]).toMatchObject({ images: IMAGES, longContext: true });
    expect(engineBodies()).toEqual([expect.objectContaining({ images: IMAGES, longContext: true })]);
    expect(response).toMatchObject({ answers: { topic: { status: 'ok' } }, model: { provider: 'typesafe' } });
  });

  it('leaves both out when the call does', async () => {
    const { service, pipeline } = await start();
    await service.ask(ASK);
    expect(pipeline.mock.calls[0][0]).not.toHaveProperty('images');
    expect(pipeline.mock.calls[0][0]).not.toHaveProperty('longContext');
    expect(engineBodies()).toHaveLength(1);
    expect(engineBodies()[0]).not.toHaveProperty('images');
    expect(engineBodies()[0]).not.toHaveProperty('longContext');
  });

  it('hands back the failed primary as fallbacks when the fallback answers', async () => {
    const { service } = await start('fallback = ["mock"]');
    fake.fault = 'status-503';
    const { response } = await service.ask(ASK);
    expect(response).toMatchObject({
      answers: { topic: { status: 'ok', answer: { type: 'choice' } } },
      model: { provider: 'mock' },
    });
    expect(response.fallbacks).toEqual([
      {
        provider: 'typesafe',
        error: { code: 'unavailable', httpStatus: 503, message: expect.stringContaining('HTTP 503') },
      },
    ]);
  });

  it('has no fallbacks when the primary answers', async () => {
    const { service } = await start('fallback = ["mock"]');
    const { response } = await service.ask(ASK);
    expect(response.model).toMatchObject({ provider: 'typesafe' });
    expect(response).not.toHaveProperty('fallbacks');
  });
});
