import { type TestingModule } from '@nestjs/testing';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { LayaFake } from '../../fakes/laya.fake';
import { gatewayApp } from '../../helpers/gateway-app';

const SECRET = 'sk-test-LAYA-SECRET-42';
const ASK = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: ['rerun the pipeline', 'block the merge'],
};

describe('an engine that dies mid-run and comes back', () => {
  let app: TestingModule;
  afterEach(() => app?.close());

  it('falls back while it is gone and decides through it again once it is back, no restart', async () => {
    const fake = new LayaFake({ apiKey: SECRET });
    const url = await fake.start();
    const port = Number(url.port);
    const logs: string[] = [];
    app = await gatewayApp({
      toml: `[gateway]\nprovider = "laya"\nfallback = ["mock"]\ntimeout_s = 1\n[providers.laya]\nendpoint = "${url.origin}"`,
      env: { SYSTEM1_LAYA_API_KEY: SECRET },
      logs,
    });
    const gateway = app.get(DecideService);
    expect(await gateway.decide(ASK)).toMatchObject({ status: 'decided', provider: 'laya' });

    await fake.stop();
    const gone = await gateway.decide(ASK);
    expect(gone).toMatchObject({ status: 'decided', provider: 'mock' });
    // The first call finds the kept-alive connection reset, later ones are refused: both say so.
    expect(gone.attempts[0]).toMatchObject({
      provider: 'laya',
      outcome: 'error',
      detail: expect.stringMatching(/connection refused|reset the connection/),
    });

    const back = new LayaFake({ apiKey: SECRET });
    await back.start(port);
    try {
      expect(await gateway.decide(ASK)).toMatchObject({
        status: 'decided',
        provider: 'laya',
        attempts: [{ outcome: 'ok' }],
      });
    } finally {
      await back.stop();
    }
    expect(logs.join('')).not.toContain(SECRET);
  });

  it('never shows, nor lets inject a header with, a key holding a newline', async () => {
    const fake = new LayaFake();
    const url = await fake.start();
    const poisoned = 'sk-LEAK-7f3a\r\nX-Injected: yes';
    const logs: string[] = [];
    try {
      app = await gatewayApp({
        toml: `[gateway]\nprovider = "laya"\nfallback = ["mock"]\n[providers.laya]\nendpoint = "${url.origin}"`,
        env: { SYSTEM1_LAYA_API_KEY: poisoned },
        logs,
      });
      const reply = await app.get(DecideService).decide(ASK);
      expect(reply).toMatchObject({ status: 'decided', provider: 'mock' });
      expect(JSON.stringify(reply)).not.toContain('sk-LEAK-7f3a');
      expect(logs.join('')).not.toContain('sk-LEAK-7f3a');
      // Refused before anything is sent (a header value may not hold a line break), so no forged header can
      // reach the engine; the attempt is the engine's error and the fallback answers. (Were the key trimmed and
      // sent instead, this would have to check each request's headers: none has x-injected.)
      expect(fake.requests).toHaveLength(0);
      expect(reply.attempts).toEqual([
        {
          provider: 'laya',
          outcome: 'error',
          latency_ms: expect.any(Number),
          detail: expect.stringMatching(/INVALID_CHAR|invalid|line break|newline/i),
        },
        { provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null },
      ]);
    } finally {
      await fake.stop();
    }
  });
});
