import { Injectable, Module } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CapabilitiesService } from '../../../src/mcp/capabilities.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { PauseState } from '../../../src/decisions/pipeline/pause-state.service';
import { ProviderDefinition, System1Provider } from '../../../src/decisions/registry/provider.interface';
import { MalformedResponseError, ProviderError } from '../../../src/decisions/errors/decision-error';
import { System1ProviderDefinition } from '../../../src/decisions/registry/providers.token';
import { gatewayApp } from '../../helpers/gateway-app';
import { answer, DecisionBatch, ScriptedEngine, ScriptedEngineModule } from '../../helpers/scripted.provider';
import { ChoiceAsk, ChoiceProvider } from '../../../src/providers/choice/choice-provider';

const REQUEST = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: ['rerun', 'block'],
  request_id: 'r-1',
};

describe('DecideService', () => {
  let app: TestingModule;
  const start = async (toml: string, env: Record<string, string> = {}) => {
    app = await gatewayApp({ toml, env, imports: [ScriptedEngineModule] });
    return app.get(DecideService);
  };
  afterEach(async () => {
    await app?.close();
    ScriptedEngine.script = async () => ({});
  });

  it('hands the provider one question about the context as state, and yes/no when there are no options', async () => {
    const batches: DecisionBatch[] = [];
    ScriptedEngine.script = async (batch) => {
      batches.push(batch);
      return answer(batch, { decision: batch.questions[0].options[1], confidence: 0.8 });
    };
    const gateway = await start('[gateway]\nprovider = "scripted"');
    const reply = await gateway.decide({ question: 'Is rm -rf / destructive?', context: { cwd: '/repo' } });
    expect(batches[0]).toEqual({
      state: { cwd: '/repo' },
      questions: [{ id: 'decision', text: 'Is rm -rf / destructive?', options: ['yes', 'no'], yesNo: true }],
    });
    expect(reply).toMatchObject({
      status: 'decided',
      decision: 'no',
      confidence: 0.8,
      probabilities: null,
      rationale: null,
    });
  });

  it('cuts a slow attempt off at its timeout: the provider sees its signal abort', async () => {
    let abortedWith: unknown;
    ScriptedEngine.script = (_batch, { signal }) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          abortedWith = signal.reason;
          reject(signal.reason);
        }),
      );
    const gateway = await start('[gateway]\nprovider = "scripted"\ntimeout_s = 0.05');
    const reply = await gateway.decide(REQUEST);
    expect(abortedWith).toBeInstanceOf(Error);
    expect(reply.status).toBe('error');
    expect(reply.error).toEqual({
      code: 'provider_timeout',
      message: expect.stringContaining('no answer within 0.05 s'),
    });
    expect(reply.attempts).toEqual([
      { provider: 'scripted', outcome: 'timeout', latency_ms: expect.any(Number), detail: 'no answer within 0.05 s' },
    ]);
  });

  it('ends an attempt at its timeout even when the provider ignores the signal', async () => {
    ScriptedEngine.script = () => new Promise(() => undefined);
    const gateway = await start('[gateway]\nprovider = "scripted"\ntimeout_s = 0.05\nfallback = ["mock"]');
    const reply = await gateway.decide(REQUEST);
    expect(reply.attempts.map((a) => [a.provider, a.outcome])).toEqual([
      ['scripted', 'timeout'],
      ['mock', 'ok'],
    ]);
    expect(reply).toMatchObject({ status: 'decided', provider: 'mock', decision: 'rerun' });
  });

  it.each([
    [
      'a provider error',
      async () => Promise.reject(new ProviderError('HTTP 503 from engine')),
      'error',
      'HTTP 503 from engine',
      'provider_error',
    ],
    [
      'an unreadable reply',
      async () => Promise.reject(new MalformedResponseError('body is not JSON')),
      'malformed',
      'body is not JSON',
      'malformed_response',
    ],
    [
      'a non-object answer',
      async (b: DecisionBatch) => answer(b, 'rerun' as never),
      'malformed',
      'not an object (got a string)',
      'malformed_response',
    ],
    ['no answers object', async () => 'x' as never, 'malformed', 'no answers object', 'malformed_response'],
    ['a missing answer', async () => ({}), 'malformed', 'not an object (got nothing)', 'malformed_response'],
    [
      'a decision outside the options',
      async (b: DecisionBatch) => answer(b, { decision: 'merge anyway', confidence: 0.9 }),
      'malformed',
      '"merge anyway" is not one of the options',
      'malformed_response',
    ],
    [
      'a confidence above 1',
      async (b: DecisionBatch) => answer(b, { decision: 'rerun', confidence: 1.2 }),
      'malformed',
      'confidence 1.2 is not a number in [0, 1]',
      'malformed_response',
    ],
    [
      'a confidence that is text',
      async (b: DecisionBatch) => answer(b, { decision: 'rerun', confidence: '0.9' }),
      'malformed',
      'confidence "0.9"',
      'malformed_response',
    ],
    [
      'probabilities over a non-option',
      async (b: DecisionBatch) => answer(b, { decision: 'rerun', confidence: 0.9, probabilities: { maybe: 0.1 } }),
      'malformed',
      '"maybe", which is not an option',
      'malformed_response',
    ],
  ])('falls back after %s and records why', async (_name, script, outcome, detail, code) => {
    ScriptedEngine.script = script as never;
    const gateway = await start('[gateway]\nprovider = "scripted"\nfallback = ["mock"]');
    const decided = await gateway.decide(REQUEST);
    expect(decided.attempts).toEqual([
      { provider: 'scripted', outcome, latency_ms: expect.any(Number), detail: expect.stringContaining(detail) },
      { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
    ]);
    expect(decided).toMatchObject({ status: 'decided', provider: 'mock', error: null });

    await app.close();
    const alone = await start('[gateway]\nprovider = "scripted"');
    const failed = await alone.decide(REQUEST);
    expect(failed).toMatchObject({ status: 'error', decision: null, provider: null, error: { code } });
    expect(failed.error!.message).toContain(detail);
  });

  it('never shows the text of an unexpected exception, which may carry request data', async () => {
    ScriptedEngine.script = async () => {
      throw new TypeError('Invalid header value "Bearer sk-live-SECRET"');
    };
    const gateway = await start('[gateway]\nprovider = "scripted"');
    const reply = await gateway.decide(REQUEST);
    expect(JSON.stringify(reply)).not.toContain('SECRET');
    expect(reply.attempts[0].detail).toBe('unexpected TypeError in the provider');
  });

  it('treats a provider abstention as an answer: no fallback runs', async () => {
    ScriptedEngine.script = async (batch) => answer(batch, { abstain: true, rationale: 'non-Latin text' });
    const gateway = await start('[gateway]\nprovider = "scripted"\nfallback = ["mock"]');
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({
      status: 'abstained',
      decision: null,
      provider: 'scripted',
      rationale: 'non-Latin text',
    });
    expect(reply.attempts).toEqual([
      { provider: 'scripted', outcome: 'abstained', latency_ms: expect.any(Number), detail: 'non-Latin text' },
    ]);
  });

  it('abstains below the threshold without a fallback, and a request may set its own threshold', async () => {
    ScriptedEngine.script = async (batch) =>
      answer(batch, {
        decision: 'block',
        confidence: 0.55,
        probabilities: { rerun: 0.45, block: 0.55 },
        rationale: 'close call',
      });
    const gateway = await start('[gateway]\nprovider = "scripted"\nfallback = ["mock"]\nmin_confidence = 0.6');
    const below = await gateway.decide(REQUEST);
    expect(below).toMatchObject({
      status: 'abstained',
      decision: null,
      confidence: 0.55,
      probabilities: { rerun: 0.45, block: 0.55 },
      provider: 'scripted',
      rationale: 'confidence 0.55 is below the threshold 0.6; close call',
    });
    expect(below.attempts.map((a) => a.outcome)).toEqual(['ok']);
    expect(await gateway.decide({ ...REQUEST, min_confidence: 0.5 })).toMatchObject({
      status: 'decided',
      decision: 'block',
    });
    expect(await gateway.decide({ ...REQUEST, min_confidence: 0.55 })).toMatchObject({ status: 'decided' });
  });

  it('skips a provider whose option limit a request exceeds, and refuses what no provider accepts', async () => {
    ScriptedEngine.script = async (batch) => answer(batch, { decision: 'c', confidence: 0.9 });
    const gateway = await start(
      '[gateway]\nprovider = "mock"\nfallback = ["scripted"]\n[providers.mock]\nmax_options = 2',
    );
    const reply = await gateway.decide({ question: 'Which?', options: ['a', 'b', 'c'] });
    expect(reply.attempts).toEqual([
      {
        provider: 'mock',
        outcome: 'error',
        latency_ms: 0,
        detail: 'refused: mock takes at most 2 candidates per choice question; "decision" has 3',
      },
      { provider: 'scripted', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
    ]);

    await app.close();
    const mockOnly = await start('[gateway]\nprovider = "mock"\n[providers.mock]\nmax_options = 2');
    let called = false;
    ScriptedEngine.script = async () => ((called = true), {});
    const refused = await mockOnly.decide({ question: 'Which?', options: ['a', 'b', 'c'] });
    // The spec: the refusal is the provider's attempt, and with no fallback left the decision is provider_error.
    expect(refused).toMatchObject({
      status: 'error',
      attempts: [{ provider: 'mock', outcome: 'error', latency_ms: 0 }],
      error: { code: 'provider_error' },
    });
    expect(refused.error!.message).toContain('mock takes at most 2 candidates');
    expect(called).toBe(false);
  });

  it('answers config_error without calling any provider while the config is broken', async () => {
    let called = false;
    ScriptedEngine.script = async (batch) => ((called = true), answer(batch, { decision: 'rerun', confidence: 1 }));
    const gateway = await start('[gateway]\nprovider = "scripted"\ntimeout_s = 0');
    const reply = await gateway.decide(REQUEST);
    expect(reply).toMatchObject({ status: 'error', request_id: 'r-1', attempts: [], error: { code: 'config_error' } });
    expect(reply.error!.message).toContain('gateway.timeout_s');
    expect(called).toBe(false);
  });

  it('abstains while paused and decides again once resumed, with no restart', async () => {
    const installDir = mkdtempSync(path.join(tmpdir(), 's1-pause-'));
    try {
      const gateway = await start('[gateway]\nprovider = "mock"', { SYSTEM1_INSTALL_DIR: installDir });
      app.get(PauseState).pause();
      const paused = await gateway.decide(REQUEST);
      expect(paused).toMatchObject({ status: 'abstained', decision: null, attempts: [] });
      expect(paused.rationale).toContain('paused');
      app.get(PauseState).resume();
      expect(await gateway.decide(REQUEST)).toMatchObject({ status: 'decided' });
    } finally {
      rmSync(installDir, { recursive: true, force: true });
    }
  });

  it('echoes a valid request id even on invalid requests, and generates one otherwise', async () => {
    const gateway = await start('[gateway]\nprovider = "mock"');
    expect(await gateway.decide({ request_id: 'keep-me', question: '' })).toMatchObject({
      request_id: 'keep-me',
      status: 'error',
    });
    const generated = await gateway.decide({ question: 'Go?' });
    expect(generated.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** A team's own engine, in its own module: nothing in src/ mentions it. */
@Injectable()
@System1ProviderDefinition()
class LastOptionEngine implements ProviderDefinition {
  readonly name = 'last-option';
  readonly description = 'picks the last option';
  readonly settings = {};
  create(): System1Provider {
    return new LastOption();
  }
}

/** A team's simple engine extends the shared choice base and only picks. */
class LastOption extends ChoiceProvider {
  readonly name = 'last-option';
  protected choiceCapabilities() {
    return { batch: false, probabilities: false, max_options: 4 };
  }
  protected async pick(ask: ChoiceAsk) {
    return { decision: ask.options.at(-1), confidence: 0.75, rationale: 'last one' };
  }
  async health() {
    return { ok: true, detail: 'always up' };
  }
}

@Module({ providers: [LastOptionEngine] })
class TeamEngineModule {}

describe('a provider added from another module', () => {
  it('joins SYSTEM1_PROVIDERS and answers, without any change to the gateway', async () => {
    const app = await gatewayApp({ toml: '[gateway]\nprovider = "last-option"', imports: [TeamEngineModule] });
    try {
      const reply = await app.get(DecideService).decide(REQUEST);
      expect(reply).toMatchObject({
        status: 'decided',
        decision: 'block',
        provider: 'last-option',
        rationale: 'last one',
      });
      const capabilities = app.get(CapabilitiesService).capabilities();
      expect(capabilities.available_providers.map((p) => p.name)).toEqual(
        expect.arrayContaining(['last-option', 'mock', 'laya']),
      );
      expect(capabilities.providers['last-option']).toMatchObject({ max_options: 4 });
    } finally {
      await app.close();
    }
  });
});
