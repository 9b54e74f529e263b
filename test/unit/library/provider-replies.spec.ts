import type { EvaluateReply } from '../../../src/decisions/registry/provider.interface';
import { LibrarySandbox } from './library-setup';

/**
 * What a provider says beside its answers (`model`, `usage`, `approximate`, `degraded`) is checked like the
 * answers are: a field of the wrong kind is dropped with one warning naming it, never passed to the caller.
 * Answers to questions nobody asked are one counted warning, however many there are.
 */
describe('a provider reply read by the library', () => {
  let sandbox: LibrarySandbox;
  beforeEach(() => (sandbox = new LibrarySandbox()));
  afterEach(() => sandbox.close());

  const asked = { ok: { type: 'noul' as const, instructions: 'Is it fine?' } };
  const answers = { ok: { type: 'noul', noul: 0.9 } };
  /** A call answered by an engine that replies `extra` beside a good answer. */
  async function replying(extra: Record<string, unknown>) {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('careless', {
      capabilities: () => ({ batch: true, probabilities: true, model: 'careless-1', questions: { types: ['noul'] } }),
      evaluate: async () => ({ answers, ...extra }) as unknown as EvaluateReply,
    });
    const result = await system1.decide({ state: 'x', questions: asked, model: { provider: 'careless' } });
    expect(result.answers.ok).toMatchObject({ status: 'ok', answer: { probabilityTrue: 0.9 } });
    return result.meta;
  }

  it.each([
    [
      'a model that is an object',
      { model: { name: 'm', secret: 'x' } },
      'careless reported its model as an object, not a name of at most 256 characters (ignored)',
    ],
    [
      'a model of 10,000 characters',
      { model: 'm'.repeat(10_000) },
      'careless reported its model as a string, not a name of at most 256 characters (ignored)',
    ],
    [
      'a blank model',
      { model: '  ' },
      'careless reported its model as a string, not a name of at most 256 characters (ignored)',
    ],
    [
      'usage that is text',
      { usage: 'lots' },
      'careless reported its usage as a string, not {inputTokens, outputTokens} counts (ignored)',
    ],
    [
      'a negative token count',
      { usage: { inputTokens: -1, outputTokens: 2 } },
      'careless reported its usage as an object, not {inputTokens, outputTokens} counts (ignored)',
    ],
    [
      'a token count that is an object',
      { usage: { inputTokens: { n: 1 } } },
      'careless reported its usage as an object, not {inputTokens, outputTokens} counts (ignored)',
    ],
    [
      'approximate as text',
      { approximate: 'yes' },
      'careless reported "approximate" as a string, not true or false (ignored)',
    ],
    [
      'degraded as a list',
      { degraded: [true] },
      'careless reported "degraded" as an array, not true or false (ignored)',
    ],
  ])('drops %s with one warning naming the field', async (_what, extra, warning) => {
    const meta = await replying(extra);
    expect(meta.warnings).toEqual([warning]);
    // The model the engine's capabilities name stands in for the one it misreported.
    expect(meta.executed).toEqual({ provider: 'careless', model: 'careless-1' });
    expect(meta.usage).toBeUndefined();
    expect(meta.approximate).toBeUndefined();
    expect(meta.degraded).toBeUndefined();
  });

  it('passes well-formed facts on, and of usage only the token counts', async () => {
    const meta = await replying({
      model: 'careless-2',
      usage: { inputTokens: 12, outputTokens: 0, blob: 'x'.repeat(1000) },
      approximate: false,
      degraded: true,
    });
    expect(meta).toMatchObject({
      executed: { provider: 'careless', model: 'careless-2' },
      usage: { inputTokens: 12, outputTokens: 0 },
      approximate: false,
      degraded: true,
    });
    expect(meta.usage).toEqual({ inputTokens: 12, outputTokens: 0 });
    expect(meta.warnings).toBeUndefined();
  });

  it('counts 300,000 answers to questions nobody asked in one warning', async () => {
    const stray = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`s${i}`, { type: 'noul', noul: 0.5 }]));
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('chatty', {
      capabilities: () => ({ batch: true, probabilities: true, questions: { types: ['noul'] } }),
      evaluate: async () => ({ answers: { ...answers, ...stray } }),
    });
    const result = await system1.decide({
      state: 'x',
      questions: asked,
      model: { provider: 'chatty' },
      timeoutMs: 60_000,
    });
    expect(result.answers).toEqual({ ok: expect.objectContaining({ status: 'ok' }) });
    expect(result.meta.warnings).toEqual([
      'chatty: 300000 answers to questions not asked were ignored ("s0", "s1", "s2" and 299997 more)',
    ]);
  });
});
