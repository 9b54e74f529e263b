/**
 * The one pipeline tells its observers of every decision (the HTTP metrics, the health summary), whatever
 * surface asked, and an observer can never cost a caller its answer.
 */
import type { TestingModule } from '@nestjs/testing';
import type { DecisionEvent } from '../../../src/decisions/pipeline/decision-observer';
import { DecisionService } from '../../../src/decisions/pipeline/decision.service';
import { libraryDecide } from '../../../src/library/library-decide';
import { AskService } from '../../../src/mcp/ask/ask.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { DecisionTally } from '../../../src/mcp/decision-tally';
import { gatewayApp } from '../../helpers/gateway-app';

let app: TestingModule;
beforeEach(async () => {
  app = await gatewayApp({ toml: '[gateway]\nprovider = "mock"\n' });
});
afterEach(() => app.close());

describe('decision observers', () => {
  it('see each decision with the surface that asked', async () => {
    const events: DecisionEvent[] = [];
    const stop = app.get(DecisionService).observe((event) => events.push(event));
    await app.get(DecideService).decide({ question: 'Go?' }, 'http-request-7');
    await app.get(AskService).ask({
      state: {},
      questions: [{ id: 'q', type: 'choice', instructions: 'Which?', criteria: { a: null, b: null } }],
    });
    await libraryDecide(app.get(DecisionService), {
      state: 'x',
      questions: { q: { type: 'choice', instructions: 'Which?', criteria: { a: null, b: null } } },
    });
    await app.get(DecisionService).decide({
      questions: { q: { type: 'choice', instructions: 'Which?', criteria: { a: null, b: null } } } as never,
    });
    expect(events.map((event) => [event.surface, event.outcome.executed?.provider])).toEqual([
      ['system1_decide', 'mock'],
      ['system1_ask', 'mock'],
      ['library', 'mock'],
      ['other', 'mock'],
    ]);
    // The id the HTTP server gave the request is the decision's when the arguments give none.
    expect(events[0].outcome.requestId).toBe('http-request-7');
    stop();
    await app.get(DecideService).decide({ question: 'Again?' });
    expect(events).toHaveLength(4);
  });

  it('cannot break a decision by throwing', async () => {
    app.get(DecisionService).observe(() => {
      throw new Error('a broken observer');
    });
    expect(await app.get(DecideService).decide({ question: 'Go?' })).toMatchObject({
      status: 'decided',
      provider: 'mock',
    });
  });

  it('feed the health summary: decisions, errors and abstentions since start', async () => {
    const decide = app.get(DecideService);
    await decide.decide({ question: 'One?' });
    await decide.decide({ question: 'Two?', min_confidence: 0.99 });
    await decide.decide({ question: 'Three?', bogus: true }); // refused before the pipeline: not a decision
    await decide.decide({ question: 'Four?', options: ['a', 'b'] });
    expect(app.get(DecisionTally).summary()).toEqual({
      since: expect.any(String),
      decisions: 3,
      errors: 0,
      abstentions: 1,
    });
  });
});
