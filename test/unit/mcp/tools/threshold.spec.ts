/** The confidence threshold: configured, overridden per request, and never a reason to fall back. */
import { InMemoryGateways } from '../../../helpers/in-memory-mcp';

const gateways = InMemoryGateways.perTest();

/** A confident second mock behind the primary: if an abstention fell back, it would decide. */
const WITH_CONFIDENT_FALLBACK = `
[gateway]
provider = "mock"
fallback = ["sure"]

[providers.sure]
type = "mock"
confidence = 0.99
`;

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

describe('a mock at confidence 0.5 with the default threshold 0.6', () => {
  it('abstains, still reports the confidence, and does not fall back', async () => {
    const gateway = await gateways.connect({
      toml: WITH_CONFIDENT_FALLBACK,
      env: { SYSTEM1_MOCK_CONFIDENCE: '0.5' },
    });
    const { body, isError } = await gateway.decide({ ...ASK, request_id: 'low-1' });
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      request_id: 'low-1',
      status: 'abstained',
      decision: null,
      confidence: 0.5,
      provider: 'mock',
      error: null,
    });
    expect(body.rationale).toEqual(expect.stringContaining('0.6'));
    expect(body.attempts).toEqual([{ provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null }]);

    // The per-request threshold overrides the configured one, on the same server.
    const lowered = await gateway.decide({ ...ASK, min_confidence: 0.1 });
    expect(lowered.body).toMatchObject({ status: 'decided', decision: 'rerun', confidence: 0.5, provider: 'mock' });
    expect(lowered.body.attempts).toHaveLength(1);

    // "Below the threshold" abstains; exactly at it decides.
    const equal = await gateway.decide({ ...ASK, min_confidence: 0.5 });
    expect(equal.body.status).toBe('decided');
  });

  it('decides once SYSTEM1_MIN_CONFIDENCE lowers the threshold to 0.4', async () => {
    const gateway = await gateways.connect({
      env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_CONFIDENCE: '0.5', SYSTEM1_MIN_CONFIDENCE: '0.4' },
    });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', decision: 'rerun', confidence: 0.5, error: null });
    expect((await gateway.capabilities()).min_confidence).toBe(0.4);
  });
});

describe('a high configured threshold', () => {
  it('abstains by default and decides when the request lowers it to 0.1', async () => {
    const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MIN_CONFIDENCE: '0.99' } });
    const strict = await gateway.decide(ASK);
    expect(strict.body).toMatchObject({ status: 'abstained', decision: null, confidence: 0.9 });
    const lenient = await gateway.decide({ ...ASK, min_confidence: 0.1 });
    expect(lenient.body).toMatchObject({ status: 'decided', decision: 'rerun', confidence: 0.9 });
  });
});

describe('a provider that abstains by itself', () => {
  it('is answered abstained with its rationale, recorded as an abstained attempt, with no fallback', async () => {
    const gateway = await gateways.connect({
      toml: WITH_CONFIDENT_FALLBACK,
      env: { SYSTEM1_MOCK_RESPONSE: JSON.stringify({ abstain: true, rationale: 'too close to call' }) },
    });
    const { body, isError } = await gateway.decide(ASK);
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      status: 'abstained',
      decision: null,
      provider: 'mock',
      rationale: 'too close to call',
      error: null,
    });
    expect(body.attempts).toEqual([
      { provider: 'mock', outcome: 'abstained', latency_ms: expect.any(Number), detail: 'too close to call' },
    ]);
  });
});
