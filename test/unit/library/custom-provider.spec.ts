import { System1ProviderError } from '../../../src/decisions/errors/decision-error';
import type { System1Provider } from '../../../src/decisions/registry/provider.interface';
import type { CustomProvider } from '../../../src/library/custom-provider';
import { type EvaluateRequest } from '../../../src/decisions/registry/provider.interface';
import { System1InputError } from '../../../src/decisions/errors/input-error';
import { LibrarySandbox, THREE_QUESTIONS, waitFor } from './library-setup';

/** A team's engine: answers every choice with its first candidate, unless told to wait for its signal. */
class TeamEngine implements System1Provider {
  calls: EvaluateRequest[] = [];
  signals: AbortSignal[] = [];
  hold = false;

  capabilities() {
    return { batch: true, probabilities: true, model: 'team-1', questions: { types: ['choice' as const] } };
  }

  async evaluate(request: EvaluateRequest, { signal }: { signal: AbortSignal }) {
    this.calls.push(request);
    this.signals.push(signal);
    if (this.hold) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const answers = Object.fromEntries(
      Object.entries(request.questions).map(([id, question]) => {
        const keys = Object.keys((question as { criteria: object }).criteria);
        return [
          id,
          {
            type: 'choice',
            choice: keys[0],
            probabilities: Object.fromEntries(keys.map((k, i) => [k, i === 0 ? 0.9 : 0.1 / (keys.length - 1)])),
          },
        ];
      }),
    );
    return { answers, model: request.model ?? 'team-1' };
  }
}

describe('providers registered at run time', () => {
  let sandbox: LibrarySandbox;
  beforeEach(() => (sandbox = new LibrarySandbox()));
  afterEach(() => sandbox.close());

  it('answers through a registered engine, with the model the call names', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const engine = new TeamEngine();
    system1.registerProvider('team', engine);
    const result = await system1.decide({
      state: { ticket: 'x' },
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'team', model: 'team-2' },
    });
    expect(result.answers.topic).toMatchObject({ status: 'ok', answer: { value: 'billing', confidence: 0.9 } });
    expect(result.meta.executed).toEqual({ provider: 'team', model: 'team-2' });
    expect(engine.calls[0]).toMatchObject({ model: 'team-2', state: { ticket: 'x' } });
  });

  it('cancels the call in flight when disposed, ends the chain, and is idempotent', async () => {
    const system1 = await sandbox.open(
      '[gateway]\nprovider = "mock"',
      {},
      { defaultModel: { provider: 'team' }, fallbackModels: [{ provider: 'mock' }] },
    );
    const engine = new TeamEngine();
    engine.hold = true;
    const dispose = system1.registerProvider('team', engine);
    const pending = system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic }, timeoutMs: 10_000 });
    await waitFor(() => engine.calls.length === 1, 'the call to reach the engine');
    dispose();
    const result = await pending;
    expect(engine.signals[0].aborted).toBe(true);
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'cancelled', message: 'provider team was unregistered during the call' },
    });
    expect(result.meta.executed).toBeUndefined();
    expect(result.meta.attempts).toBeUndefined();
    expect(() => dispose()).not.toThrow();
    // Gone: the chain now starts with an engine nobody provides, and the mock answers.
    const after = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(after.meta.attempts?.[0]).toMatchObject({ provider: 'team', error: { code: 'unavailable' } });
    expect(after.meta.executed).toEqual({ provider: 'mock' });
  });

  it('does not let a second registration be removed by the first one’s disposer', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const first = system1.registerProvider('team', new TeamEngine());
    first();
    system1.registerProvider('team', new TeamEngine());
    first();
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'team' },
    });
    expect(result.answers.topic.status).toBe('ok');
  });

  it.each([
    ['a built-in name', 'laya', new TeamEngine(), 'is already a provider name'],
    ['an empty name', ' ', new TeamEngine(), 'must be a non-empty string'],
    [
      'an engine without evaluate or pick',
      'odd',
      { capabilities: () => ({ batch: false, probabilities: false }) },
      'must implement capabilities() and evaluate() or pick(), or describe() and evaluate()',
    ],
  ])('refuses %s', async (_what, name, engine, message) => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    expect(() => system1.registerProvider(name, engine as CustomProvider)).toThrow(System1InputError);
    expect(() => system1.registerProvider(name, engine as CustomProvider)).toThrow(message);
  });

  it('answers what the last engine takes and marks only the other questions unsupported', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('team', new TeamEngine());
    const result = await system1.decide({ state: 'x', questions: THREE_QUESTIONS, model: { provider: 'team' } });
    expect(result.answers.topic).toMatchObject({ status: 'ok', answer: { value: 'billing' } });
    expect(result.answers.refund).toEqual({
      status: 'error',
      error: {
        code: 'unsupported',
        message: 'team does not answer noul questions (question "refund"; it answers choice)',
      },
    });
    expect(result.answers.urgency).toMatchObject({ status: 'error', error: { code: 'unsupported' } });
  });

  it('passes an engine’s own error code through, and falls back after it', async () => {
    const system1 = await sandbox.open(
      '[gateway]\nprovider = "mock"',
      {},
      { defaultModel: { provider: 'team' }, fallbackModels: [{ provider: 'mock' }] },
    );
    system1.registerProvider('team', {
      capabilities: () => ({ batch: true, probabilities: true }),
      evaluate: async () => {
        throw new System1ProviderError('limit_exceeded', 'team takes 100 tokens of state at most');
      },
    });
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(result.meta.attempts).toEqual([
      { provider: 'team', error: { code: 'limit_exceeded', message: 'team takes 100 tokens of state at most' } },
    ]);
    expect(result.meta.executed).toEqual({ provider: 'mock' });
  });

  it('ends an attempt at its timeout even when the engine ignores its signal', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('stubborn', {
      capabilities: () => ({ batch: true, probabilities: true }),
      evaluate: () => new Promise(() => undefined),
    });
    const result = await system1.decide({
      state: 'x',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'stubborn' },
      timeoutMs: 100,
    });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'timeout', message: 'no answer within 0.1 s' },
    });
  });

  it('hides an unexpected exception’s text, which may carry request data', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('buggy', {
      capabilities: () => ({ batch: true, probabilities: true }),
      evaluate: async (request) => {
        throw new TypeError(`cannot read ${JSON.stringify(request.state)}`);
      },
    });
    const result = await system1.decide({
      state: 'secret state',
      questions: { topic: THREE_QUESTIONS.topic },
      model: { provider: 'buggy' },
    });
    expect(result.answers.topic).toEqual({
      status: 'error',
      error: { code: 'provider_error', message: 'unexpected TypeError in the provider' },
    });
  });
});

describe('engines that only pick among options', () => {
  let sandbox: LibrarySandbox;
  beforeEach(() => (sandbox = new LibrarySandbox()));
  afterEach(() => sandbox.close());

  it('asks choice, yes/no and score as choices and reads the answers back as typed answers', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"\n[providers.mock]\nconfidence = 0.7');
    const result = await system1.decide({ state: 'refund please', questions: THREE_QUESTIONS });
    // The mock picks the first option at 0.7 and shares the rest evenly.
    expect(result.answers.topic).toMatchObject({
      status: 'ok',
      answer: { value: 'billing', probabilities: { billing: 0.7, technical: expect.closeTo(0.3, 6) } },
    });
    expect(result.answers.refund).toMatchObject({
      status: 'ok',
      answer: { value: true, probabilityTrue: 0.7, confidence: expect.closeTo(0.4, 6) },
    });
    expect(result.answers.urgency).toMatchObject({
      status: 'ok',
      answer: {
        level: 0,
        distribution: [0.7, expect.closeTo(0.15, 6), expect.closeTo(0.15, 6)],
        value: expect.closeTo(0.45, 6),
      },
    });
  });

  it('keeps a candidate’s description on its option label and maps the pick back to the key', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"', {}, { defaultModel: { provider: 'team' } });
    const seen: string[][] = [];
    system1.registerProvider('team', {
      capabilities: () => ({ batch: false, probabilities: false }),
      pick: async (ask) => {
        seen.push(ask.options);
        return { decision: ask.options[1], confidence: 0.8 };
      },
    });
    const result = await system1.decide({ state: 'x', questions: { topic: THREE_QUESTIONS.topic } });
    expect(seen[0]).toEqual(['billing: Billing refund', 'technical: Technical support']);
    expect(result.answers.topic).toMatchObject({
      status: 'ok',
      answer: {
        value: 'technical',
        confidence: 0.8,
        probabilities: { billing: expect.closeTo(0.2, 6), technical: 0.8 },
      },
    });
    // One confidence spread over the rest is an approximation, and the meta says so.
    expect(result.meta.approximate).toBe(true);
  });
});
