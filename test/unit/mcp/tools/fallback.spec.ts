/** Fallback on timeout, error and malformed answers, with every attempt recorded; and when every provider fails. */
import { InMemoryGateways } from '../../../helpers/in-memory-mcp';

const gateways = InMemoryGateways.perTest();

/** Misbehaving mock instances; each scenario picks its chain from these. */
const PROVIDERS = `
[providers.broken]
type = "mock"
fail = "engine down"

# The longest delay the mock takes: a call that answers at all was cut off, not waited out.
[providers.slow]
type = "mock"
delay_s = 300

[providers.text]
type = "mock"
response = "not an object"

[providers.stranger]
type = "mock"
response = { decision = "nope", confidence = 0.9 }

[providers.overconfident]
type = "mock"
response = { decision = "rerun", confidence = 1.5 }
`;

const config = (provider: string, fallback: string[], timeoutS = 5) => `
[gateway]
provider = "${provider}"
fallback = [${fallback.map((name) => `"${name}"`).join(', ')}]
timeout_s = ${timeoutS}
${PROVIDERS}`;

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const latency = expect.any(Number);

describe('a failing primary', () => {
  it('falls back to mock, recording the error with its detail', async () => {
    const gateway = await gateways.connect({ toml: config('broken', ['mock']) });
    const { body, isError } = await gateway.decide({ ...ASK, request_id: 'fb-error' });
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      request_id: 'fb-error',
      status: 'decided',
      decision: 'rerun',
      provider: 'mock',
      error: null,
    });
    expect(body.attempts).toEqual([
      { provider: 'broken', outcome: 'error', latency_ms: latency, detail: expect.stringContaining('engine down') },
      { provider: 'mock', outcome: 'ok', latency_ms: latency, detail: null },
    ]);
  });
});

describe('a slow primary', () => {
  it('is cut off at the attempt timeout, recorded as timeout, and mock answers', async () => {
    const gateway = await gateways.connect({ toml: config('slow', ['mock'], 0.5) });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', decision: 'rerun', provider: 'mock' });
    // The slow mock would answer after 300 s: mock answering at all means the attempt was cut off, and the
    // detail names the 0.5 s it was cut off at (not some other limit).
    expect(body.attempts).toEqual([
      { provider: 'slow', outcome: 'timeout', latency_ms: latency, detail: 'no answer within 0.5 s' },
      { provider: 'mock', outcome: 'ok', latency_ms: latency, detail: null },
    ]);
  });
});

describe('malformed primaries', () => {
  it('records each malformed answer and falls back in order until mock decides', async () => {
    const gateway = await gateways.connect({ toml: config('text', ['stranger', 'overconfident', 'mock']) });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', decision: 'rerun', provider: 'mock', confidence: 0.9 });
    expect(body.attempts).toEqual([
      { provider: 'text', outcome: 'malformed', latency_ms: latency, detail: expect.stringContaining('not an object') },
      { provider: 'stranger', outcome: 'malformed', latency_ms: latency, detail: expect.stringContaining('nope') },
      { provider: 'overconfident', outcome: 'malformed', latency_ms: latency, detail: expect.stringContaining('1.5') },
      { provider: 'mock', outcome: 'ok', latency_ms: latency, detail: null },
    ]);
  });
});

describe('when every provider fails', () => {
  const failed = {
    status: 'error',
    decision: null,
    confidence: null,
    provider: null,
  };

  it('answers provider_error when the last failure is an error', async () => {
    const gateway = await gateways.connect({ toml: config('slow', ['broken'], 0.3) });
    const { body, isError } = await gateway.decide({ ...ASK, request_id: 'all-fail-1' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({
      ...failed,
      request_id: 'all-fail-1',
      error: { code: 'provider_error', message: expect.any(String) },
    });
    expect(body.attempts.map((a: { provider: string; outcome: string }) => [a.provider, a.outcome])).toEqual([
      ['slow', 'timeout'],
      ['broken', 'error'],
    ]);
    expect(body.error.message).toContain('engine down');
  });

  it('answers provider_timeout when the last failure is a timeout', async () => {
    const gateway = await gateways.connect({ toml: config('broken', ['slow'], 0.3) });
    const { body, isError } = await gateway.decide(ASK);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ...failed, error: { code: 'provider_timeout' } });
    expect(body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['error', 'timeout']);
  });

  it('answers malformed_response when the last failure is malformed', async () => {
    const gateway = await gateways.connect({ toml: config('broken', ['stranger']) });
    const { body, isError } = await gateway.decide(ASK);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ...failed, error: { code: 'malformed_response' } });
    expect(body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['error', 'malformed']);
  });

  it('answers provider_error for a lone failing mock (SYSTEM1_MOCK_FAIL)', async () => {
    const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_FAIL: 'engine down' } });
    const { body, isError } = await gateway.decide(ASK);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ...failed, error: { code: 'provider_error' } });
    expect(body.attempts).toEqual([
      { provider: 'mock', outcome: 'error', latency_ms: latency, detail: expect.stringContaining('engine down') },
    ]);
  });
});
